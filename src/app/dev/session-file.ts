/**
 * `SVC_HOME/session.json`, the session `svc auth login` saved (mode 0600: it
 * holds a token, and for a session signed in at an authorization server, a
 * refresh token too), and what the instance trusts because of it.
 * @module
 */
import { join } from 'node:path';
import { ValidationError } from '../../errors';
import { JsonFile } from '../../stores';
import type { TrustedIssuer } from '../../tokens';
import { trustedIssuerFor } from '../../oauth';

/**
 * A session signed in at an authorization server (`svc auth login` by device code):
 * where to refresh it and revoke it. The refresh token is a secret like the token.
 */
export interface SavedOAuth {
  /** The server's base URL (its issuer). */
  server: string;
  /** The client the session was issued to (`svc-cli`). */
  clientId: string;
  refreshToken: string;
  /** When the access token expires, ISO 8601. */
  expiresAt: string;
}

/** What `session.json` holds. The token is a secret: the file is mode 0600. */
export interface SavedSession {
  user: string;
  /** The access token: a session of the dev instance, or the server's JWT access token (`oauth`). */
  token: string;
  /** Present when the session was signed in at an authorization server. */
  oauth?: SavedOAuth;
}

/**
 * The session file of `home`.
 *
 * @example
 * ```ts
 * const saved = await sessionFile('/tmp/svc').read(); // SavedSession | undefined
 * ```
 */
export function sessionFile(home: string): JsonFile<SavedSession> {
  // A refresh happens inside the session's lock (refresh tokens rotate: two processes must not both use
  // one), so the lock's budget covers one request to the server (10 s) and not only a file write.
  return new JsonFile<SavedSession>(join(home, 'session.json'), {
    mode: 0o600,
    label: 'session file',
    parse: parseSession,
    lockTimeoutMs: 15_000,
  });
}

/** @internal The saved session's server as a trusted issuer of its API resource, or none. */
export async function savedIssuer(
  session: JsonFile<SavedSession>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TrustedIssuer[]> {
  if (env.SVC_TOKEN !== undefined && env.SVC_TOKEN !== '') return [];
  const saved = await session.read().catch(() => undefined);
  if (saved?.oauth === undefined) return [];
  try {
    return [trustedIssuerFor({ issuer: saved.oauth.server, resource: saved.oauth.server })];
  } catch {
    // Not an origin (an edited file): nothing is trusted, and the token is refused as any unknown issuer's.
    return [];
  }
}

function parseSession(data: unknown): SavedSession {
  const d = data as { user?: unknown; token?: unknown; oauth?: unknown } | null;
  if (typeof d?.user !== 'string' || typeof d.token !== 'string') {
    throw new ValidationError([{ path: '', message: 'expected { "user", "token" }' }]);
  }
  return d.oauth === undefined ? { user: d.user, token: d.token } : { user: d.user, token: d.token, oauth: parseOAuth(d.oauth) };
}

function parseOAuth(value: unknown): SavedOAuth {
  const o = (typeof value === 'object' && value !== null ? value : {}) as Partial<Record<keyof SavedOAuth, unknown>>;
  const { server, clientId, refreshToken, expiresAt } = o;
  if (typeof server !== 'string' || typeof clientId !== 'string' || typeof refreshToken !== 'string' || typeof expiresAt !== 'string') {
    throw new ValidationError([{ path: 'oauth', message: 'expected { "server", "clientId", "refreshToken", "expiresAt" }' }]);
  }
  return { server, clientId, refreshToken, expiresAt };
}
