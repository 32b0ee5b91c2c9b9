/**
 * The saved session of an authorization server: save it after sign-in, renew
 * it when its access token has expired, revoke it on logout. Refresh tokens
 * rotate (each is good once, and oidc-provider ends the whole grant when a
 * used one comes back), so a renewal is one locked read-modify-write of the
 * session file: a second `svc` process waiting on the lock finds the renewed
 * pair and uses it instead of sending the spent refresh token. The new pair
 * replaces the old one atomically, or not at all.
 * @module
 */
import { decodeJwt } from 'jose';
import { AuthenticationError, UnavailableError } from '../../../errors';
import type { DevInstance, SavedOAuth, SavedSession } from '../../dev';
import { tokensOf, type GrantedTokens } from './device';
import { requestJson } from './http';
import { checkServerUrl, discover } from './server';

/** Renew this long before the access token's expiry: a token that expires in flight is no use. */
const EARLY_MS = 30_000;

/**
 * The session to save after a device sign-in. The user is the token's `sub`, read
 * without verifying (the caller shows it; the instance verifies the token when it is used).
 *
 * @example
 * ```ts
 * await dev.session.update(() => savedFrom(server, 'svc-cli', tokens, Date.now()));
 * ```
 */
export function savedFrom(server: string, clientId: string, tokens: GrantedTokens, nowMs: number): SavedSession {
  const user = subjectOf(tokens.accessToken);
  const oauth: SavedOAuth = {
    server,
    clientId,
    refreshToken: tokens.refreshToken,
    expiresAt: new Date(nowMs + tokens.expiresIn * 1000).toISOString(),
  };
  return { user, token: tokens.accessToken, oauth };
}

/**
 * The `sub` of a token the server just gave, read without verifying (to show and to save; the instance
 * verifies the token when it is used); `'?'` when it has none a person could read.
 *
 * @example
 * ```ts
 * io.stdout(`logged in as ${subjectOf(accessToken)}\n`);
 * ```
 */
export function subjectOf(token: string): string {
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === 'string' && sub.length <= 256 ? sub : '?';
  } catch {
    // Not a JWT: the server is not one svc-auth accepts; the next command says so.
    return '?';
  }
}

/**
 * Is the saved access token expired, or about to?
 *
 * @example
 * ```ts
 * if (saved.oauth !== undefined && isDue(saved.oauth, Date.now())) await renew(dev, saved.token);
 * ```
 */
export function isDue(oauth: SavedOAuth, nowMs: number): boolean {
  const at = Date.parse(oauth.expiresAt);
  return Number.isNaN(at) || at - EARLY_MS <= nowMs;
}

const signInAgain = "run 'svc auth login' to sign in again";

/**
 * Renew the saved session at its server's token endpoint, unless another process did
 * since `stale` (the access token the caller found expired) was read. Resolves to the
 * access token to use.
 *
 * @throws AuthenticationError reason `expired` when the server refuses the refresh token (sign in again).
 * @throws UnavailableError when the server cannot be reached.
 * @example
 * ```ts
 * const token = await renew(dev, saved.token);
 * ```
 */
export async function renew(dev: DevInstance, stale: string): Promise<string> {
  const after = await dev.session.update(async (current) => {
    if (current?.oauth === undefined || current.token !== stale) return undefined;
    const o = current.oauth;
    const server = checkServerUrl(o.server, 'the saved session');
    const endpoints = await discover(server, '--server');
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: o.refreshToken, client_id: o.clientId });
    const answer = await requestJson(endpoints.token, 'the token endpoint', form);
    if (answer.status === 400 || answer.status === 401) {
      throw new AuthenticationError('expired', `the saved session has ended and could not be renewed at ${server}: ${signInAgain}`);
    }
    return { ...savedFrom(server, o.clientId, tokensOf(answer), Date.now()), user: current.user };
  });
  if (after === undefined) throw new AuthenticationError('missing', `not logged in: ${signInAgain}`);
  return after.token;
}

/**
 * Revoke the saved session's refresh token at its server (RFC 7009): the grant ends,
 * and with it every access token of the grant, on its next request.
 *
 * @throws UnavailableError when the server cannot be reached or does not revoke.
 * @example
 * ```ts
 * await revokeAtServer(saved.oauth);
 * ```
 */
export async function revokeAtServer(oauth: SavedOAuth): Promise<void> {
  const server = checkServerUrl(oauth.server, 'the saved session');
  const endpoints = await discover(server, '--server');
  if (endpoints.revocation === undefined) throw new UnavailableError(`${server} offers no revocation endpoint`);
  const form = new URLSearchParams({ token: oauth.refreshToken, token_type_hint: 'refresh_token', client_id: oauth.clientId });
  const answer = await requestJson(endpoints.revocation, 'the revocation endpoint', form);
  if (answer.status !== 200) throw new UnavailableError(`${server} did not revoke the session (HTTP ${answer.status})`);
}
