/**
 * Contract of the service layer (6): `createAuth` and what it returns.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../policy/subject';
import type { Decision } from '../policy/decision';
import type { Scope, ScopeEntry } from '../scopes/types';
import type { UserRoles } from '../policy/types';
import type { KeyRing } from '../tokens/types';
import type { TokenStore } from '../stores/types';
import type { AuthEventHook } from './events';

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
  keys: KeyRing;
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
   * leaves it alone; the oldest entry goes when it is full.
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
   * Record a PAT's or component token's `lastUsedAt` at most once per this many
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
}

/** A token as management shows it. The token value is never part of it. */
export interface TokenInfo {
  id: string;
  name: string;
  description: string | null;
  status: 'active' | 'expired' | 'revoked';
  scopes: Scope[] | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  committerIdentity: string | null;
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

/** The SDK namespace `client(principal).token.*` (spec 4.2). */
export interface TokenApi {
  create(input: CreateTokenInput): Promise<{ token: string; info: TokenInfo; warnings: string[] }>;
  list(options?: ListTokensOptions): Promise<TokenInfo[]>;
  get(name: string): Promise<TokenInfo>;
  revoke(name: string): Promise<TokenInfo>;
}

/** What `createAuth` returns. */
export interface Auth {
  authenticate(token: string): Promise<Principal>;
  authenticateRequest(req: Request | IncomingMessage): Promise<Principal>;
  /**
   * Decide one operation (A1-A5). `permission` is typed `string`, not
   * `Permission`, on purpose: callers pass permissions read at run time (a
   * route table, a config file, a request), and A1 promises that malformed
   * input is decided `{ allowed: false, reason: 'invalid' }` rather than
   * rejected. The framework adapters and guards take `Permission`, so a
   * misspelt literal there fails to compile.
   */
  authorize(p: Principal, resource: string, permission: string, thingName?: string): Decision;
  client(p: Principal): { token: TokenApi };
  issueSession(userId: string, opts?: { expiresIn?: string }): Promise<string>;
  issueComponentToken(userId: string, opts?: { scopes?: ScopeEntry[]; expiresIn?: string }): Promise<string>;
  committer(p: Principal, override?: string): string;
  revokeToken(tokenId: string): Promise<void>;
  /** Server-side administration: every PAT of `userId` (no credential needed), in creation order. */
  tokensOf(userId: string): Promise<TokenInfo[]>;
  /**
   * Wait for queued last-used writes and event deliveries (for shutdown and
   * tests). Never rejects: failures were already counted and dropped.
   */
  flush(): Promise<void>;
}
