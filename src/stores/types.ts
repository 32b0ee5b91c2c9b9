/**
 * The storage contract for token records. Small on purpose: a PostgreSQL or
 * Redis adapter implements it in one file, and `svc-auth/testing` checks it.
 *
 * Records carry no secret: the token value is never stored (T8); the record is
 * found by the JWT's `jti`.
 * @module
 */
import type { Scope } from '../core/scopes';
import type { OrgAccessChange, OrgAccessEntry, OrgPolicyRecord, OrgPolicySet } from './orgs';
import type { ProofReplayStore } from './proofs';
import type { ServiceAccountStore } from './service-accounts';

/**
 * What kind of token a record belongs to. Every token this library mints has a
 * record, read on every request (T5): a PAT, a component token, or a session
 * (`auth.issueSession`). Only PATs hold names that must be unique (T7); a
 * session record has no scopes and no parent.
 *
 * @example
 * ```ts
 * const kinds: RecordKind[] = ['pat', 'component', 'session'];
 * ```
 */
export type RecordKind = 'pat' | 'component' | 'session';

/**
 * How many distinct addresses a record keeps in `usedFrom` (GitLab shows the last few too).
 * @example
 * ```ts
 * const [info] = await auth.tokensOf('alice');
 * (info?.usedFrom.length ?? 0) <= MAX_USED_FROM; // true
 * ```
 */
export const MAX_USED_FROM = 5;

/**
 * One token's record. Immutable except `revokedAt`, which a store sets once.
 * Dates are whole seconds (the JWT's `iat`/`exp`).
 *
 * @example
 * ```ts
 * const rec: TokenRecord = {
 *   id: 'q0Zr…', kind: 'pat', ownerId: 'alice', name: 'ci', description: null,
 *   scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }], parentId: null,
 *   createdAt: new Date(), expiresAt: new Date(Date.now() + 864e5), revokedAt: null, committerIdentity: null,
 * };
 * ```
 */
export interface TokenRecord {
  /** The JWT `jti`: at least 128 random bits, base64url. */
  readonly id: string;
  readonly kind: RecordKind;
  /** The owning user id (the JWT `sub`). */
  readonly ownerId: string;
  /** Token name (S8); unique per owner among active PATs (T7). Sessions and component tokens may share names. */
  readonly name: string;
  readonly description: string | null;
  /** Validated scopes; `null` means full access of the owner (docs/concepts.md). */
  readonly scopes: readonly Scope[] | null;
  /** The PAT that created this one, or `null`. */
  readonly parentId: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
  readonly committerIdentity: string | null;
  /**
   * When `authenticate` last accepted this token, as far as the store was told
   * (see {@link TokenStore.touch}); `null` or absent when never recorded.
   * Optional so that a store written before it existed still type-checks.
   */
  readonly lastUsedAt?: Date | null;
  /**
   * The address ranges this token may be used from (canonical CIDR text,
   * `203.0.113.0/24`, `2001:db8::/32`), or `null`/absent for anywhere. A
   * request from elsewhere is refused; a child's ranges lie inside its
   * parent's (checked when it is created), and every list along the chain
   * applies. Optional so that a store written before it existed still type-checks.
   */
  readonly allowedIps?: readonly string[] | null;
  /**
   * The last few distinct client addresses the token was accepted from,
   * newest first, each with its time and user agent (see
   * {@link TokenStore.recordUse}); absent or empty when none was recorded.
   */
  readonly usedFrom?: readonly UsedFrom[];
  /**
   * The expiry warnings already given for this token: each a threshold in
   * seconds before `expiresAt` (`604800` for "within 7 days"), set by
   * {@link TokenStore.markExpiring}; absent or empty when none was.
   */
  readonly expiryWarnings?: readonly number[];
  /**
   * This token's access to the orgs that govern it (G3), at most one entry
   * per org; absent or empty when none. Written at `insert` (a request opened
   * at creation) and by {@link TokenStore.updateOrgAccess}.
   */
  readonly orgAccess?: readonly OrgAccessEntry[];
  /** The RFC 7638 thumbprint (SHA-256, base64url) of the key whose DPoP proofs this token needs; absent: none. */
  readonly boundKey?: string | null;
}

/**
 * One address a token was used from, as {@link TokenRecord.usedFrom} lists it.
 *
 * @example
 * ```ts
 * const u: UsedFrom = { address: '203.0.113.7', at: new Date(), userAgent: 'curl/8.5.0' };
 * ```
 */
export interface UsedFrom {
  /** Canonical address text (`203.0.113.7`, `2001:db8::1`). */
  readonly address: string;
  /** When the token was last accepted from this address (whole seconds). */
  readonly at: Date;
  /** The `User-Agent` of that request, capped and without control characters, or `null`. */
  readonly userAgent: string | null;
}

/**
 * One accepted use of a token, as the service hands it to {@link TokenStore.recordUse}.
 *
 * @example
 * ```ts
 * const use: TokenUse = { id: 'q0Zr…', address: '203.0.113.7', userAgent: 'curl/8.5.0' };
 * ```
 */
export interface TokenUse {
  /** The token's record id. */
  readonly id: string;
  /** The client address (canonical text), or `null` when it is not known. */
  readonly address: string | null;
  /** The request's user agent (at most 256 characters, no control characters), or `null`. */
  readonly userAgent: string | null;
}

/** Outcome of {@link TokenStore.insert}, as data: the service turns it into an error. */
export type InsertResult =
  /** Stored. */
  | 'ok'
  /** The owner already has an active PAT of this name (not revoked, `expiresAt > now`). */
  | 'name_taken'
  /** `parentId` names a record that is missing, revoked or expired at `now`. */
  | 'parent_inactive';

/**
 * Where token records live. Implementations must be safe under concurrency
 * (several calls, processes or servers at once) and must throw (or reject) on
 * any failure rather than answer optimistically: the caller fails closed.
 *
 * @example
 * not-checked: an outline of the four methods; `MemoryTokenStore` is a complete store to read
 * ```ts
 * class MyStore implements TokenStore {
 *   async insert(record, now) { ... return 'ok'; }
 *   async readChain(id) { ... }
 *   async listByOwner(ownerId) { ... }
 *   async revoke(ids, at) { ... }
 *   readChainSync(id) { ... } // optional: see below
 *   async touch(ids, at) { ... } // optional: last-used times
 *   async recordUse(uses, at) { ... } // optional: last-used times with addresses
 *   async markExpiring(withinSec, now, limit) { ... } // optional: expiry warnings (auth.sweepExpiring)
 *   async purgeSessions(cutoff, limit) { ... } // optional: remove ended sessions (auth.purge)
 * }
 * ```
 */
export interface TokenStore extends ProofReplayStore, ServiceAccountStore {
  /**
   * Store a new record. Atomically: when `record.kind === 'pat'` and the owner
   * holds another PAT with the same name that is active at `now`, nothing is
   * stored and `'name_taken'` is returned; when `record.parentId` is set and that
   * record is missing, revoked or expired at `now`, nothing is stored and
   * `'parent_inactive'` is returned. A duplicate `id` is an error (throw).
   */
  insert(record: TokenRecord, now: Date): Promise<InsertResult>;
  /**
   * The record of `id` followed by its ancestors, nearest first
   * (`[token, parent, grandparent, …]`), in one round trip; `null` when `id` is
   * unknown. A chain whose ancestor is missing is returned as far as it goes;
   * the caller treats it as invalid.
   */
  readChain(id: string): Promise<TokenRecord[] | null>;
  /** Every record of one owner, of every kind and status, in creation order. */
  listByOwner(ownerId: string): Promise<TokenRecord[]>;
  /**
   * Revoke each id and its whole descendant subtree (T6) at `at`, in one atomic
   * step. Records already revoked keep their `revokedAt`. Unknown ids are
   * ignored. Resolves to the ids newly revoked.
   */
  revoke(ids: readonly string[], at: Date): Promise<string[]>;
  /**
   * Optional fast path for a store that holds its records in this process:
   * the same answer as {@link TokenStore.readChain}, synchronously, so that
   * `authenticate` spares a promise and a deadline timer per request. Any
   * store may implement it; the service never looks at the store's class.
   *
   * - Return the chain (nearest first), or `null` for an unknown id, exactly
   *   as `readChain` would resolve at this moment.
   * - Return `undefined` to decline: the service then calls `readChain`
   *   (for a cache miss, or when `readChain` has been replaced).
   * - Throw on any failure: the service turns it into `UnavailableError` and
   *   refuses the request (fail closed, T5). Never return a stale chain: the
   *   record state is read on every call.
   *
   * @example
   * ```ts
   * // A store that keeps its records in memory can answer at once; MemoryTokenStore does.
   * const inner = new MemoryTokenStore();
   * const mine: TokenStore = {
   *   insert: (record, now) => inner.insert(record, now),
   *   readChain: (id) => inner.readChain(id),
   *   listByOwner: (ownerId) => inner.listByOwner(ownerId),
   *   revoke: (ids, at) => inner.revoke(ids, at),
   *   readChainSync: (id) => inner.readChainSync(id),
   * };
   * ```
   */
  readChainSync?(id: string): readonly TokenRecord[] | null | undefined;
  /**
   * Optional: record that each of `ids` was used at `at`, keeping the later of
   * the stored `lastUsedAt` and `at` (a late batch never moves it back). Unknown
   * ids are ignored. Called off the request path, batched and throttled (at most
   * once per token per interval); a store without it simply shows no last-used
   * time. Never called with a token value.
   */
  touch?(ids: readonly string[], at: Date): Promise<void>;
  /**
   * Optional, preferred to `touch` when present: record uses with where they
   * came from. For each use whose id is known: `lastUsedAt` moves forward to
   * `at` (never back, as `touch`); when `address` is set, that address's
   * entry in `usedFrom` takes `at` and `userAgent` unless it already holds a
   * time at or after `at`, and `usedFrom` keeps the
   * {@link MAX_USED_FROM} newest distinct addresses (newest first; equal
   * times by address). Unknown ids are ignored; ids are distinct within a
   * call. Called off the request path, batched and throttled like `touch`.
   * Never called with a token value.
   */
  recordUse?(uses: readonly TokenUse[], at: Date): Promise<void>;
  /**
   * Optional: claim expiry warnings, atomically. Picks up to `limit` PAT
   * records (kind `pat` only) that are active at `now` (not revoked,
   * `expiresAt > now`), expire within `withinSec` seconds of `now`
   * (`expiresAt <= now + withinSec`), and carry no `expiryWarnings` entry at
   * or below `withinSec` (a token warned "within 1 day" is not warned "within
   * 7 days" after it); adds `withinSec` to their `expiryWarnings` and
   * resolves to them, soonest expiry first. A record is returned by at most
   * one call per threshold, whatever other calls, processes or servers run
   * at the same time: the mark is the store's, so a restart does not repeat
   * a warning either. `auth.sweepExpiring` needs it.
   */
  markExpiring?(withinSec: number, now: Date, limit: number): Promise<TokenRecord[]>;
  /**
   * Optional: remove the records of sessions that ended long ago, so that
   * sign-ins do not add rows forever. Removes up to `limit` session records
   * (kind `session` only) that expired or were revoked at or before `cutoff`
   * (`expiresAt <= cutoff` or `revokedAt <= cutoff`), each together with its
   * whole subtree (an OAuth grant's access-token records go with the grant's
   * record), in one atomic step: no record is ever left whose parent is
   * missing. A session whose subtree holds a record of another kind is kept,
   * whole. PAT and component records are never removed. Resolves to how many
   * records were removed; `0` when no such session is left. `auth.purge` needs it.
   */
  purgeSessions?(cutoff: Date, limit: number): Promise<number>;
  /**
   * Organization governance (G1-G4): a store offers all four of
   * `readPolicies`, `setPolicy`, `updateOrgAccess` and `listForOrg`, or none
   * (then `client(p).org(name)` answers `UnavailableError` and no policy applies).
   *
   * `readPolicies`: every stored policy and their version, as of now: a
   * policy set by any server holds on the next request (G4). A store may
   * answer from a cache that its chain reads keep valid (PostgreSQL reads
   * the version in the same statement as the chain, so this costs no round
   * trip until a policy changes); an in-process store may answer without a
   * promise. Throws (or rejects) on failure: the service fails closed.
   */
  readPolicies?(): OrgPolicySet | Promise<OrgPolicySet>;
  /** Store `policy` for `policy.org`, atomically; resolves to the one it replaced, or `null`. The version changes. */
  setPolicy?(policy: OrgPolicyRecord): Promise<OrgPolicyRecord | null>;
  /**
   * Apply each change in one atomic step (see {@link OrgAccessChange}): a
   * record whose current status for the org is not in `from` is left as it
   * is. Unknown ids are ignored. Resolves to the ids changed.
   */
  updateOrgAccess?(changes: readonly OrgAccessChange[]): Promise<string[]>;
  /**
   * The PAT records (kind `pat`, every status) that may reach `org`: a scope
   * entry names it (`org` or `org/<repo>`), an `orgAccess` entry is for it,
   * its scopes are `null` (full access), or an entry has no resource (global
   * tier). In creation order. The service keeps those whose owner holds a role there.
   */
  listForOrg?(org: string): Promise<TokenRecord[]>;
  /**
   * Optional: the longest one change (`insert`, `revoke`, `touch`, `recordUse`, `markExpiring`, `purgeSessions`) can take
   * before the store gives up with nothing written, in milliseconds.
   * `createAuth` refuses a `storeTimeoutMs` at or below it, so that a change
   * the service reports as failed (its deadline passed) never lands later.
   * `FileTokenStore` sets it from its `lockTimeoutMs`.
   */
  readonly changeBudgetMs?: number;
}
