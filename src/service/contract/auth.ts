/**
 * Contract of the service layer (6): `createAuth`'s options and the `Auth` it
 * returns. What its token management and its sessions show and take are in
 * tokens.ts and sessions.ts beside it.
 * @module
 */
import type { Principal, Decision, UserRoles } from '../../core/policy';
import type { ScopeEntry } from '../../core/scopes';
import type { BearerRequest, KeyRing, TrustedIssuer } from '../../tokens';
import type { TokenStore } from '../../stores';
import type { ExpiringToken, SweepOptions, TokenApi, TokenInfo } from './tokens';
import type { AuthEventHook, FlushOptions } from '../events';
import type { SessionApi, SessionPurge } from './sessions';
import type { OrgApi } from './orgs';
import type { LeakReport, ReportLeakedOptions } from '../leaks';
import type { TrustedWorkload, WorkloadExchange } from './service-accounts';
import type { AuthenticateRequestOptions, DpopNonceOptions, RequestOrigin } from './requests';

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
  /** How old a DPoP proof may be (its `iat`), in seconds, from 10 to 3 600. Default 300 (RFC 9449 §11.1). */
  dpopProofAgeSec?: number;
  /** Require a nonce of this resource in every DPoP proof (RFC 9449 §9); off by default. */
  dpopNonce?: DpopNonceOptions;
  /**
   * Bounds of the request path's caches, in entries; each defaults to 10 000,
   * at most 1 000 000, and 0 turns that cache off. The oldest entry goes when
   * one is full. Records and roles are still read on every request (T5).
   */
  cache?: {
    /**
     * Verified signatures by exact token text (T2). Only tokens whose signature
     * verified enter it, so a flood of bogus tokens leaves it alone. Trusted
     * issuers' verified tokens have a cache of their own with the same bound.
     */
    signatures?: number;
    /** Compiled scope layers, one per scoped token id. */
    layers?: number;
    /**
     * Compiled grants, per token id and roles (at most 4 role variants per
     * token; each counts): a grant is reused only for an equal chain and roles.
     */
    grants?: number;
  };
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
  /** Workload issuers (CI, clusters) whose identity tokens become short-lived service account tokens (W3; docs/machines.md). At most 16. */
  trustedWorkloads?: TrustedWorkload[];
  /**
   * The reverse proxies (addresses or CIDR ranges, IPv4 or IPv6, at most 256)
   * whose `X-Forwarded-For` may be believed, for the client address that
   * `allowedIps` and last-used addresses see. `authenticateRequest` takes the
   * connection's peer address, and only when that peer is one of these reads
   * the header from the right, through further listed proxies, up to the first
   * hop that is not one: that hop is the client. From any other peer the
   * header is ignored (it is the client's to forge). Default: none, the peer
   * is the client. Checked when the object is built.
   */
  trustProxy?: readonly string[];
}

/** What `createAuth` returns. */
export interface Auth extends SessionPurge, WorkloadExchange {
  /**
   * Verify a raw token and read its record and ancestors (T5). Throws `AuthenticationError` (with a
   * `reason`) when it is not accepted, `UnavailableError` when a store fails: never an allow.
   * `origin` says where it is used from: the client address that `allowedIps` are checked
   * against (unknown without it: a token with `allowedIps` is then refused, `ForbiddenError`
   * reason `ip`) and the address and user agent its last-used record shows.
   */
  authenticate(token: string, origin?: RequestOrigin): Promise<Principal>;
  /**
   * `authenticate` on the request's `Authorization: Bearer` header (H1); reason `missing` without one.
   * `req` is a fetch `Request` or a node `IncomingMessage` (Express's `req`, Fastify's
   * `request.raw`), typed by shape so that fetch-only code needs no `@types/node`.
   * A header refused before any token is read (none, another scheme, two tokens) is an
   * `auth.failed` event too, like every other refusal. The client address is the node
   * request's socket peer, or `options.address` (the peer of a fetch `Request`, which carries
   * none), and behind the proxies of `trustProxy` the client they name in `X-Forwarded-For`;
   * the user agent is the request's `User-Agent`.
   */
  authenticateRequest(req: BearerRequest, options?: AuthenticateRequestOptions): Promise<Principal>;
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
    /** The governance face of an org (G1-G4); every call needs `org:admin` on it. */
    org(name: string): OrgApi;
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
   * Warn about PATs that expire soon: every active PAT expiring within `within` that has not
   * been warned for this threshold (or a shorter one) yet gets one `token.expiring` event, and
   * is returned. The mark is kept in the token store, so a second sweep, another server or a
   * restart does not warn again; two servers sweeping at once warn once. Run it on a timer or
   * from cron, with each threshold you want (`'7d'`, then `'1d'`). Component tokens (at most a
   * day long) and sessions are never swept. Server-side: needs no credential.
   *
   * Throws `ValidationError` for bad options, or when the token store has no `markExpiring`
   * (the three stores of svc-auth have it); `UnavailableError` when the store fails.
   *
   * @example
   * ```ts
   * import { createAuth, generateKeyRing } from 'svc-auth';
   * const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
   * for (const t of await auth.sweepExpiring({ within: '7d' })) console.log(`${t.ownerId}: ${t.name} expires ${t.expiresAt.toISOString()}`);
   * ```
   */
  sweepExpiring(options: SweepOptions): Promise<ExpiringToken[]>;
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
