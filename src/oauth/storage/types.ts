/**
 * The storage contract of the authorization server: what it keeps between
 * requests (clients registered by DCR, grants, codes, refresh tokens, device
 * codes, sign-in sessions, pending interactions) and its secrets (signing keys,
 * cookie keys, the form key). Small on purpose, and shaped like oidc-provider's
 * own adapter (one interface for every kind of entry, keyed by kind and id), so
 * that a Redis or SQL implementation is one file.
 * @module
 */

/**
 * The kinds of entry the server stores (oidc-provider's model names).
 * `Secrets` is not among them: secrets have their own method.
 *
 * @example
 * ```ts
 * const kind: OAuthEntryKind = 'RefreshToken';
 * ```
 */
export type OAuthEntryKind =
  | 'Session'
  | 'AccessToken'
  | 'AuthorizationCode'
  | 'RefreshToken'
  | 'DeviceCode'
  | 'ClientCredentials'
  | 'Client'
  | 'InitialAccessToken'
  | 'RegistrationAccessToken'
  | 'Interaction'
  | 'ReplayDetection'
  | 'PushedAuthorizationRequest'
  | 'Grant'
  | 'BackchannelAuthenticationRequest';

/**
 * One stored entry: a JSON object written by the server. A store keeps it as
 * given (it may copy it) and reads back an equal object. `grantId`, `userCode`
 * and `uid`, when present as strings, are what the lookups below search by.
 *
 * @example
 * ```ts
 * const entry: OAuthEntry = { jti: 'r1', kind: 'RefreshToken', grantId: 'g1', exp: 1767225600 };
 * ```
 */
export type OAuthEntry = Record<string, unknown>;

/**
 * The server's secrets: its JWT signing keys (private JWKs), the keys its
 * cookies are signed with, and the key of its form tokens (CSRF). Stored once
 * and read on every start, so that tokens, cookies and open forms survive a
 * restart, and so that several servers sharing one store agree. Handle the
 * stored value as a secret (it holds private keys).
 *
 * @example
 * ```ts
 * const secrets: OAuthSecrets = { version: 1, signingKeys: [{ kty: 'OKP', crv: 'Ed25519', x: '…', d: '…', kid: 'k1' }], cookieKeys: ['…'], formKey: '…' };
 * ```
 */
export interface OAuthSecrets {
  /** The format of this value; a stored value of another version is refused, never half used. */
  readonly version: 1;
  /** Private JWKs; the first signs. */
  readonly signingKeys: readonly Record<string, unknown>[];
  /** Cookie signing keys (base64url, at least 32 bytes each); the first signs. */
  readonly cookieKeys: readonly string[];
  /** The HMAC key of the sign-in and consent forms (base64url, 32 bytes). */
  readonly formKey: string;
}

/**
 * Where an authorization server keeps its state. Every method may be called
 * concurrently (by several requests, processes or servers sharing the store)
 * and must reject on any failure rather than answer optimistically: the server
 * then answers `server_error` (never a grant). `MemoryOAuthStorage` (tests,
 * one process) and `PostgresOAuthStorage` (`svc-auth/postgres`) implement it,
 * and the repository's tests run one set of cases against both (round trip,
 * expiry, consumed marks, grant revocation, the two lookups, racing
 * `initSecrets`).
 *
 * @example
 * not-checked: an outline of the methods; `MemoryOAuthStorage` is a complete storage to read
 * ```ts
 * class MyStorage implements OAuthStorage {
 *   async set(kind, id, entry, expiresAt) { ... }
 *   async get(kind, id) { ... }
 *   async findByUserCode(userCode) { ... }
 *   async findByUid(uid) { ... }
 *   async consume(kind, id, at) { ... }
 *   async destroy(kind, id) { ... }
 *   async revokeByGrantId(grantId) { ... }
 *   async initSecrets(fresh) { ... }
 * }
 * ```
 */
export interface OAuthStorage {
  /**
   * Insert or replace the entry `kind`/`id`, to be forgotten at `expiresAt`
   * (`null`: kept until destroyed). Replacing clears a `consumed` mark only if
   * the new entry has none.
   */
  set(kind: OAuthEntryKind, id: string, entry: OAuthEntry, expiresAt: Date | null): Promise<void>;
  /** The entry, or `undefined` when unknown or past its `expiresAt`. A consumed entry carries `consumed` (epoch seconds). */
  get(kind: OAuthEntryKind, id: string): Promise<OAuthEntry | undefined>;
  /** The unexpired `DeviceCode` entry whose `userCode` is `userCode`, or `undefined`. */
  findByUserCode(userCode: string): Promise<OAuthEntry | undefined>;
  /** The unexpired `Session` entry whose `uid` is `uid`, or `undefined`. */
  findByUid(uid: string): Promise<OAuthEntry | undefined>;
  /** Mark the entry consumed at `at` (its `get` then carries `consumed`); an unknown entry is ignored. */
  consume(kind: OAuthEntryKind, id: string, at: Date): Promise<void>;
  /** Forget the entry; an unknown one is ignored. */
  destroy(kind: OAuthEntryKind, id: string): Promise<void>;
  /** Forget every entry, of every kind, whose `grantId` is `grantId`, in one atomic step. */
  revokeByGrantId(grantId: string): Promise<void>;
  /**
   * The stored secrets; when there are none yet, store `fresh` and resolve to
   * it. Atomic: when several servers start at once, one `fresh` wins and every
   * caller gets that one.
   */
  initSecrets(fresh: OAuthSecrets): Promise<OAuthSecrets>;
}
