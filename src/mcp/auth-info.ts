/**
 * `svc-auth/mcp`, part 1: a credential as the MCP SDK sees it. The SDK's
 * bearer middleware calls an `OAuthTokenVerifier`; this one authenticates with
 * `auth.authenticate` (so revocation holds on the next request, T5) and answers
 * with an `AuthInfo` whose `extra.principal` is the svc-auth `Principal`.
 * @module
 */
import { InsufficientScopeError, InvalidTokenError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { AuthenticationError, ForbiddenError, SvcAuthError, ValidationError, type AuthenticationReason } from '../errors';
import { isPrincipal, type Principal } from '../core/policy';
import { formatScopeFlags } from '../core/scopes';
import { isAuth, principalScopes, type Auth } from '../service';
import { PERMISSIONS } from '../core/vocabulary';
import { refusalTextOf } from '../http';

export type { AuthInfo, OAuthTokenVerifier };

/**
 * Options of {@link mcpTokenVerifier}.
 *
 * @example
 * ```ts
 * const options: McpVerifierOptions = { resource: 'https://svc.example/mcp', renewHint: 'create a new one at https://svc.example/tokens' };
 * ```
 */
export interface McpVerifierOptions {
  /** The MCP endpoint's URL, reported as `AuthInfo.resource` (so the SDK's `expectedResource` check passes). */
  resource?: string | URL;
  /**
   * What a person should do about a refused token, appended to the 401's
   * description. Default: ``sign in again; for a personal access token, create a new one with `svc token create` ``
   * (a session or an OAuth access token is renewed by signing in, not by the CLI).
   * Plain text: no `"` or `\` (it is written into `WWW-Authenticate`).
   */
  renewHint?: string;
}

/**
 * The default next step named in a refused token's 401 description.
 *
 * @example
 * ```ts
 * mcpTokenVerifier(auth, { renewHint: `${DEFAULT_RENEW_HINT} or ask #platform` });
 * ```
 */
export const DEFAULT_RENEW_HINT = 'sign in again; for a personal access token, create a new one with `svc token create`';

const RENEWABLE: ReadonlySet<AuthenticationReason> = new Set(['signature', 'expired', 'revoked', 'unknown']);

/**
 * @internal what a person can act on for a refused credential: a fixed text
 * per reason, never the token (nor any text from the request).
 */
export function refusalText(reason: AuthenticationReason, renewHint: string): string {
  const base = refusalTextOf(reason);
  return RENEWABLE.has(reason) ? `${base}: ${renewHint}` : base;
}

/** @internal check a renew hint once, when a verifier or handler is built. */
export function checkRenewHint(value: unknown, path: string): string {
  if (value === undefined) return DEFAULT_RENEW_HINT;
  if (typeof value !== 'string' || value.length === 0 || value.length > 200 || /["\\\u0000-\u001f\u007f]/.test(value)) {
    throw new ValidationError([
      { path, message: 'must be 1 to 200 characters of plain text without quotes, backslashes or control characters' },
    ]);
  }
  return value;
}

/** @internal a URL option as a string; `ValidationError` when it is not an absolute http(s) URL. */
export function checkUrl(value: unknown, path: string): string {
  let url: URL | undefined;
  try {
    url = value instanceof URL ? value : typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || /["\\\s]/.test(url.href)) {
    throw new ValidationError([{ path, message: 'must be an absolute http(s) URL' }]);
  }
  return url.href;
}

/** @internal `auth` must be the object `createAuth` returned (`isAuth`); checked when the object is built. */
export function checkAuth(auth: unknown): Auth {
  if (!isAuth(auth)) throw new ValidationError([{ path: 'auth', message: 'expected the object createAuth returned' }]);
  return auth;
}

/** Full access (a session, an unscoped token) as one global `--scope` value: every permission, limited by the role alone. */
const FULL_ACCESS: readonly string[] = Object.freeze([PERMISSIONS.join(',')]);

/**
 * The `--scope` strings of a principal: its token's own scopes, else the
 * nearest ancestor's that has scopes (what an unscoped child inherits, A5),
 * else full access. Decisions still use every layer; this is for display.
 */
function scopeStrings(p: Principal): string[] {
  const scopes = principalScopes(p);
  return scopes == null ? [...FULL_ACCESS] : formatScopeFlags(scopes);
}

/** @internal an AuthInfo for a principal that `auth.authenticate(token)` just returned. */
export function authInfoFor(p: Principal, token: string, resource: string | undefined): AuthInfo {
  const info: AuthInfo = {
    token,
    // A session names its user, as before sessions had records (its id identifies a sign-in, not a client).
    clientId: p.kind === 'session' || p.tokenId === undefined ? `session:${p.userId}` : p.tokenId,
    scopes: scopeStrings(p),
    // Always set: the SDK refuses an AuthInfo without it ("Token has no expiration time").
    expiresAt: Math.floor(p.expiresAt.getTime() / 1000),
    extra: { principal: p },
  };
  if (resource !== undefined) info.resource = new URL(resource);
  return info;
}

/**
 * An `OAuthTokenVerifier` for the MCP SDK that authenticates with
 * `auth.authenticate`. The `AuthInfo` it returns has `extra.principal` (the
 * `Principal`), `clientId` (the token id, or `session:<user>` for a session),
 * `scopes` (the token's scopes as `--scope` strings; full access is one string
 * listing every permission) and `expiresAt` (epoch seconds, always set). A
 * refused token becomes the SDK's `InvalidTokenError` (401) with a
 * description a person can act on, never the token; a store outage becomes
 * its `ServerError` (fail closed). Plugs into the SDK's `requireBearerAuth`
 * as it is. The SDK hands a verifier the token alone, not the request, so a
 * token with `allowedIps` is refused here (`InsufficientScopeError`, 403):
 * serve such tokens with `mcpHandlers`, which pass the
 * client address.
 *
 * @throws ValidationError when `auth` or the options are not usable.
 * @example
 * ```ts
 * import express from 'express';
 * import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
 * import { mcpTokenVerifier } from 'svc-auth/mcp';
 * const app = express();
 * app.use('/mcp', requireBearerAuth({ verifier: mcpTokenVerifier(auth), resourceMetadataUrl: 'https://svc.example/.well-known/oauth-protected-resource/mcp' }));
 * ```
 */
export function mcpTokenVerifier(auth: Auth, options: McpVerifierOptions = {}): OAuthTokenVerifier {
  const a = checkAuth(auth);
  if (typeof options !== 'object' || options === null) throw new ValidationError([{ path: 'options', message: 'must be an object' }]);
  const unknown = Object.keys(options).filter((k) => k !== 'resource' && k !== 'renewHint');
  if (unknown.length > 0) throw new ValidationError(unknown.map((k) => ({ path: `options.${k.slice(0, 40)}`, message: 'unknown option' })));
  const resource = options.resource === undefined ? undefined : checkUrl(options.resource, 'options.resource');
  const hint = checkRenewHint(options.renewHint, 'options.renewHint');
  return Object.freeze({
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      let p: Principal;
      try {
        p = await a.authenticate(token);
      } catch (err) {
        throw toOAuthError(err, hint);
      }
      return authInfoFor(p, token, resource);
    },
  });
}

function toOAuthError(err: unknown, hint: string): Error {
  if (err instanceof AuthenticationError) return new InvalidTokenError(refusalText(err.reason, hint));
  // The verifier sees no request, so no address: a token with allowedIps is refused here (403).
  if (err instanceof ForbiddenError && err.reason === 'ip') {
    return new InsufficientScopeError('this token may only be used from its allowed addresses, which this endpoint cannot check');
  }
  if (err instanceof SvcAuthError && err.code === 'validation') return new InvalidTokenError(refusalText('malformed', hint));
  // Unavailable and anything unexpected: refuse, and say nothing about why.
  return new ServerError('the token could not be checked right now: try again');
}

/**
 * The `Principal` behind an MCP request, for a tool handler: pass
 * `extra.authInfo`. Only a principal that `auth.authenticate` made is
 * returned; a copy or a forged `extra` is refused.
 *
 * @throws AuthenticationError reason `missing` when the request carried no svc-auth credential.
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { mcpPrincipal } from 'svc-auth/mcp';
 * const server = new McpServer({ name: 'repos', version: '1.0.0' });
 * server.registerTool('whoami', { inputSchema: {} }, async (_args, extra) => {
 *   const p = mcpPrincipal(extra.authInfo);
 *   return { content: [{ type: 'text', text: p.userId }] };
 * });
 * ```
 */
export function mcpPrincipal(authInfo: AuthInfo | undefined): Principal {
  let p: unknown;
  try {
    p = typeof authInfo === 'object' && authInfo !== null ? authInfo.extra?.['principal'] : undefined;
    if (isPrincipal(p)) return p;
  } catch {
    // A throwing getter or Proxy trap: no principal.
  }
  throw new AuthenticationError('missing', 'this MCP request carries no svc-auth credential');
}
