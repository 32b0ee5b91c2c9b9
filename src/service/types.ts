/**
 * Contract of the service layer (6): `createAuth` and what it returns.
 * @module
 */
import type { Principal, Decision, UserRoles } from '../core/policy';
import type { Scope, ScopeEntry } from '../core/scopes';
import type { BearerRequest, KeyRing, TrustedIssuer } from '../tokens';
import type { TokenStore } from '../stores';
import type { AuthEventHook, FlushOptions } from './events';
import type { SessionApi } from './session-types';
import type { LeakReport, ReportLeakedOptions } from './leaks';

/** Where `createAuth` learns a user's roles. Called on every `authenticate`. */
export interface MembershipSource {
  rolesOf(userId: string): UserRoles | Promise<UserRoles>;
}

/**
 * Options of {@link createAuth}. Checked once, when the object is built.
 */
export interface AuthOptions {
  /** JWT `iss`, pinned on verify. */
  issuer: string;
  /** Signs new tokens and verifies presented ones (T2); from `generateKeyRing` or `importKeyRing`. */
  keys: KeyRing;
  /** Where a user's roles come from; read on every `authenticate`, so a role change holds on the next request. */
  members: MembershipSource;
  /** Default: a new `MemoryTokenStore`. */
  tokens?: TokenStore;
  /** The owner's own committer identity (T9). Default `svc:default/users/Identity/<userId>`. */
  identityOf?: (userId: string) => string;
  /** Injectable clock. Default `() => new Date()`. */
  now?: () => Date;
  /** Accepted clock skew for `iat`, in seconds. Default 5. */
  clockToleranceSec?: number;
  /**
   * Entries in the verified-signature cache (exact token text -> verified
   * claims, T2). Default 10 000, at most 1 000 000; 0 disables it. Only
   * tokens whose signature verified enter it, so a flood of bogus tokens
   * leaves it alone; the oldest entry goes when it is full. Trusted issuers'
   * verified tokens have a cache of their own with the same bound.
   */
  signatureCacheSize?: number;
  /**
   * Compiled scope layers kept, one per scoped token id. Default 10 000, at
   * most 1 000 000; 0 compiles on every grant-cache miss. Oldest first out.
   */
  layerCacheSize?: number;
  /**
   * Compiled grants kept, per token id and roles (at most 4 role variants per
   * token; each counts). Default 10 000, at most 1 000 000; 0 builds the grant
   * on every request. Records and roles are still read on every request (T5):
   * a grant is reused only for an equal chain and equal roles.
   */
  grantCacheSize?: number;
  /** Milliseconds a store or membership call may take before it counts as unavailable. Default 5 000. */
  storeTimeoutMs?: number;
  /**
   * Record a token's or session's `lastUsedAt` at most once per this many
   * milliseconds, off the request path (needs a store with `touch`). Default
   * 60 000; 0 turns recording off; otherwise 1 000 to 86 400 000.
   */
  lastUsedIntervalMs?: number;
  /**
   * Receives audit events (`token.created`, `token.revoked`, `auth.failed`,
   * `access.denied`), off the request path: a throwing or slow hook never
   * changes or delays an answer. Events never carry a token value.
   */
  onEvent?: AuthEventHook;
  /**
   * Identity providers whose JWT access tokens authenticate here as sessions of their
   * user (T10; docs/identity-providers.md): `iss` pinned, `aud` must contain `audience`,
   * keys from the issuer's JWKS. A token with a `scope` (or `scp`) claim is narrowed
   * to the svc permissions in it, and then may not manage tokens. At most 16.
   *
   * @example
   * ```ts
   * import { createAuth, generateKeyRing } from 'svc-auth';
   * const auth = createAuth({
   *   issuer: 'https://svc.example',
   *   keys: await generateKeyRing(),
   *   members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
   *   trustedIssuers: [{ issuer: 'https://acme.eu.auth0.com/', audience: 'https://svc.example/api' }],
   * });
   * ```
   */
  trustedIssuers?: TrustedIssuer[];
}

/** A token as management shows it. The token value is never part of it. */
export interface TokenInfo {
  /** The token's id (its JWT `jti`); `auth.revokeToken(id)` takes it. */
  id: string;
  /** Unique per owner among active tokens (T7). */
  name: string;
  /** Free text given at creation, or `null`. */
  description: string | null;
  /** Derived when read (T4): `revoked` if revoked, else `expired` once now >= `expiresAt`, else `active`. */
  status: 'active' | 'expired' | 'revoked';
  /** The normalized scopes (roles expanded, S9), or `null` for the owner's full access. */
  scopes: Scope[] | null;
  /** When it was created, in whole seconds (the JWT `iat`). */
  createdAt: Date;
  /** When it stops authenticating, in whole seconds (the JWT `exp`). */
  expiresAt: Date;
  /** When it (or an ancestor, T6) was revoked, or `null`. */
  revokedAt: Date | null;
  /** The identity its writes are committed as (T9), or `null` for the owner's own. */
  committerIdentity: string | null;
  /** The id of the PAT that created it, or `null` when a session did. */
  parentId: string | null;
  /** When `authenticate` last accepted it (recorded at most once per `lastUsedIntervalMs`); `null` if never. */
  lastUsedAt: Date | null;
}

/** Options of `client(p).token.list`. */
export interface ListTokensOptions {
  /** Only active tokens that expire within this time: `'<N>d'` or a number of days, 1 to 365 (as `expiresIn`). */
  expiringWithin?: string | number;
}

/** Input of `client(p).token.create`. */
export interface CreateTokenInput {
  name: string;
  description?: string;
  scopes?: ScopeEntry[];
  /** `'<N>d'` or a number of days, 1 to 365. Default 30 days. */
  expiresIn?: string | number;
  committerIdentity?: string;
}

/** The SDK namespace `client(principal).token.*` (docs/concepts.md). */
export interface TokenApi {
  /**
   * Create a PAT owned by the caller's user; a PAT caller creates its own child (M4). The value is
   * returned once and never stored (T8). Throws `ValidationError` for bad input, `ConflictError` for a
   * name already active (T7), `ForbiddenError` for a child asking more than its parent (M4) or a
   * component caller (M3).
   */
  create(input: CreateTokenInput): Promise<{
    /** The token value: show it once, it cannot be read again. */
    token: string;
    /** The new token as management shows it. */
    info: TokenInfo;
    /** Notices for the user: stripped `allowedMatches` (S5), an expiry clamped to the parent's (T3), entries above the role (M5). */
    warnings: string[];
  }>;
  /** The tokens this caller manages (M1, M2), with derived status (T4). */
  list(options?: ListTokensOptions): Promise<TokenInfo[]>;
  /** The active token of that name, else the newest (T7); `NotFoundError` outside what the caller manages. */
  get(name: string): Promise<TokenInfo>;
  /**
   * Revoke the newest non-revoked token of that name and its whole subtree (T6, T7).
   * `NotFoundError` outside what the caller manages; `ForbiddenError` when a PAT names
   * itself (a session of its user, or the token that created it, can revoke it).
   */
  revoke(name: string): Promise<TokenInfo>;
}

/** What `createAuth` returns. */
export interface Auth {
  /**
   * Verify a raw token and read its record and ancestors (T5). Throws `AuthenticationError` (with a
   * `reason`) when it is not accepted, `UnavailableError` when a store fails: never an allow.
   */
  authenticate(token: string): Promise<Principal>;
  /**
   * `authenticate` on the request's `Authorization: Bearer` header (H1); reason `missing` without one.
   * `req` is a fetch `Request` or a node `IncomingMessage` (Express's `req`, Fastify's
   * `request.raw`), typed by shape so that fetch-only code needs no `@types/node`.
   * A header refused before any token is read (none, another scheme, two tokens) is an
   * `auth.failed` event too, like every other refusal.
   */
  authenticateRequest(req: BearerRequest): Promise<Principal>;
  /**
   * The principal of a user your server has already signed in by its own means (a cookie
   * session, an SSO callback): a session principal, read as `authenticate` reads a session
   * token, with the roles read now from `members`. No token is minted or verified. Use it for
   * the request at hand and make a new one per request, so that a role change holds on the
   * next one; it expires like a new session (12 hours). It is as powerful as a session: it
   * manages all of the user's tokens (M1), so pass only a user id your server authenticated,
   * never one read from the request.
   *
   * Throws `ValidationError` for a user id that is not 1 to 256 characters without whitespace or
   * control characters (and, without `identityOf`, not made of letters, digits, `.`, `_`, `-`);
   * `UnavailableError` when the membership source fails.
   *
   * @example
   * ```ts
   * import { createAuth, generateKeyRing } from 'svc-auth';
   * const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) } });
   * const signedInUser = 'alice'; // from your own login, never from the request
   * const p = await auth.principalFor(signedInUser);
   * auth.authorize(p, 'acme/web', 'repo:write'); // { allowed: true }
   * const tokens = await auth.client(p).token.list();
   * ```
   */
  principalFor(userId: string): Promise<Principal>;
  /**
   * Decide one operation (A1-A5) for a principal this very `Auth` returned: any other
   * (a copy, or a principal of another `Auth` instance, whose members and store are not
   * this one's) is `{ allowed: false, reason: 'invalid' }`. `permission` is typed `string`, not
   * `Permission`, on purpose: callers pass permissions read at run time (a
   * route table, a config file, a request), and A1 promises that malformed
   * input is decided `{ allowed: false, reason: 'invalid' }` rather than
   * rejected. The framework adapters and guards take `Permission`, so a
   * misspelt literal there fails to compile.
   */
  authorize(p: Principal, resource: string, permission: string, thingName?: string): Decision;
  /** The SDK client of a principal. */
  client(p: Principal): {
    /** Token management, `client(p).token.*`, limited to what `p` manages (M1-M3); never lists sessions. */
    token: TokenApi;
    /** The user's own sessions, `client(p).sessions.*`: seen and ended by a session of that user only. */
    sessions: SessionApi;
  };
  /**
   * Mint a session for a user your server has signed in (T3; `expiresIn` `<N>d|h|m`, default 12h,
   * at most 30d). Its record is stored first (the store's failure is `UnavailableError` and no
   * token is returned) and read on every request like a PAT's, so `auth.revokeToken(id)`,
   * `client(p).sessions.revoke(id)` or `svc auth logout` holds on its next request. `name`
   * (default `'session'`, written like a token name) labels it in `sessions.list()`; names of
   * sessions need not be unique. `ValidationError` lists every bad option.
   *
   * @example
   * ```ts
   * import { createAuth, generateKeyRing } from 'svc-auth';
   * const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
   * const session = await auth.issueSession('alice', { expiresIn: '8h', name: 'web' }); // after your own sign-in
   * const p = await auth.authenticate(session);
   * await auth.revokeToken(p.tokenId!); // sign-out: the next request with `session` is refused
   * ```
   */
  issueSession(userId: string, opts?: { expiresIn?: string; name?: string }): Promise<string>;
  /** Mint a short-lived component token (T3; default 1h, at most 1d), optionally scoped; never listed by management. */
  issueComponentToken(userId: string, opts?: { scopes?: ScopeEntry[]; expiresIn?: string }): Promise<string>;
  /** The committer identity of a write by `p` (T9): `override`, else the token's, else the owner's. */
  committer(p: Principal, override?: string): string;
  /** Revoke any token (a session too) and its subtree by id, server-side; an unknown id does nothing. */
  revokeToken(tokenId: string): Promise<void>;
  /**
   * Revoke leaked tokens: each string that verifies as a token of this instance (any kind: PAT,
   * component token, session) and is still active is revoked with its subtree (T6), and a
   * `token.leaked` event names its owner, id and name (never the value). Strings that are not
   * tokens of this instance, or have nothing left to revoke, are counted. Needs no credential:
   * whoever holds a leaked token may kill it, and can do nothing else with this call. Repeats are
   * judged once; a string over 8 KiB is not parsed. For an HTTP endpoint use
   * `credentialRevocationHandler`, which answers the same whatever was reported.
   *
   * Throws `ValidationError` for more than 1 000 strings, a non-string, or bad options;
   * `UnavailableError` when the store fails (the tokens revoked before the failure stay revoked,
   * with their events).
   *
   * @example
   * ```ts
   * import { createAuth, generateKeyRing } from 'svc-auth';
   * const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) } });
   * const me = await auth.principalFor('alice');
   * const { token } = await auth.client(me).token.create({ name: 'ci' });
   * const report = await auth.reportLeaked([token, 'not a token'], { source: 'support' });
   * report.revoked; // 1
   * report.outcomes; // ['revoked', 'foreign']
   * ```
   */
  reportLeaked(tokens: readonly string[], options: ReportLeakedOptions): Promise<LeakReport>;
  /** Server-side administration: every PAT of `userId` (no credential needed), in creation order. */
  tokensOf(userId: string): Promise<TokenInfo[]>;
  /**
   * Wait for queued last-used writes and event deliveries (for shutdown and tests), at most
   * one deadline for all of them together: `options.timeoutMs`, by default `storeTimeoutMs`.
   * What is still queued then goes on in the background. Rejects only for bad options
   * (`ValidationError`): failing writes and hooks were already counted and dropped.
   *
   * @example
   * ```ts
   * process.on('SIGTERM', () => {
   *   void auth.flush({ timeoutMs: 2_000 }).then(() => process.exit(0));
   * });
   * ```
   */
  flush(options?: FlushOptions): Promise<void>;
}
