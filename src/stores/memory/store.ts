/**
 * The default token store: everything in this process's memory, lost on exit.
 * Right for tests, examples and single-process services whose tokens may vanish
 * on restart; anything else wants a shared store (PostgreSQL, the file store).
 * @module
 */
import { ProofKeys } from './proofs';
import { settle } from '../settle';
import type { OrgAccessChange, OrgPolicyRecord, OrgPolicySet } from '../orgs';
import { applyOrgAccess, listOrg, PolicyTable } from '../org-table';
import { TokenTable } from '../token-table';
import { ServiceAccountTable, type ServiceAccountRecord } from '../service-accounts';
import type { InsertResult, TokenRecord, TokenStore, TokenUse } from '../types';
import { CLAIM_NOW, SHARED_CHAIN, type ClaimNowSource, type SharedChainSource } from '../views';

/**
 * A {@link TokenStore} in memory. Each operation completes synchronously inside
 * its promise (no `await` between a check and the write it guards), so
 * concurrent calls are atomic. Records are copied in and handed out as fresh
 * frozen copies: mutating a returned record, or the object given to `insert`,
 * changes nothing stored. Lookups are indexed by id, owner, name and parent.
 *
 * Bad arguments (a record of the wrong shape, an invalid `Date`) reject with a
 * `ValidationError`; a duplicate id rejects with a `ConflictError`.
 *
 * @example
 * ```ts
 * import { MemoryTokenStore } from 'svc-auth';
 * const store = new MemoryTokenStore();
 * const now = new Date('2026-01-01T00:00:00Z');
 * await store.insert({
 *   id: 'tok-1', kind: 'pat', ownerId: 'alice', name: 'ci', description: null, scopes: null,
 *   parentId: null, createdAt: now, expiresAt: new Date('2026-01-31T00:00:00Z'),
 *   revokedAt: null, committerIdentity: null,
 * }, now); // 'ok'
 * (await store.readChain('tok-1'))?.[0]?.name; // 'ci'
 * await store.revoke(['tok-1'], now);          // ['tok-1']
 * ```
 */
export class MemoryTokenStore implements TokenStore {
  private readonly table = new TokenTable();
  private readonly proofs = new ProofKeys();
  private readonly policies = new PolicyTable();
  private readonly accounts = new ServiceAccountTable();

  /** How many records are held (of every kind and status). */
  get size(): number {
    return this.table.size;
  }

  insert(record: TokenRecord, now: Date): Promise<InsertResult> {
    return settle(() => this.table.insert(record, now));
  }

  readChain(id: string): Promise<TokenRecord[] | null> {
    return settle(() => this.table.readChain(id));
  }

  /**
   * {@link TokenStore.readChainSync}: the chain without a promise. Declines
   * (`undefined`) when `readChain` has been replaced on the instance or in a
   * subclass, so that the replacement, not this table, answers.
   */
  readChainSync(id: string): TokenRecord[] | null | undefined {
    if (this.readChain !== MemoryTokenStore.prototype.readChain) return undefined;
    return this.table.readChain(id);
  }

  // `readChainSync` for the service's request path (see views.ts): shared frozen views instead of
  // fresh copies; declines like `readChainSync`. Set on the prototype from a static block rather than
  // declared as a method, so that the published declarations never name the module-private symbol.
  static {
    (MemoryTokenStore.prototype as SharedChainSource)[SHARED_CHAIN] = function (this: MemoryTokenStore, id: string) {
      if (this.readChain !== MemoryTokenStore.prototype.readChain || typeof id !== 'string') return undefined;
      return this.table.readChainShared(id);
    };
    // The replay claim at once, for the request path; declines when claimProof was replaced.
    (MemoryTokenStore.prototype as ClaimNowSource)[CLAIM_NOW] = function (
      this: MemoryTokenStore,
      key: string,
      untilMs: number,
      nowMs: number,
    ) {
      if (this.claimProof !== MemoryTokenStore.prototype.claimProof) return undefined;
      return this.proofs.claimMs(key, untilMs, nowMs);
    };
  }

  listByOwner(ownerId: string): Promise<TokenRecord[]> {
    return settle(() => this.table.listByOwner(ownerId));
  }

  revoke(ids: readonly string[], at: Date): Promise<string[]> {
    return settle(() => this.table.revoke(ids, at));
  }

  /** Record last-used times (see {@link TokenStore.touch}). */
  touch(ids: readonly string[], at: Date): Promise<void> {
    return settle(() => {
      this.table.touch(ids, at);
    });
  }

  /** Record uses with their addresses (see {@link TokenStore.recordUse}). */
  recordUse(uses: readonly TokenUse[], at: Date): Promise<void> {
    return settle(() => {
      this.table.recordUse(uses, at);
    });
  }

  /** Remove ended sessions with their subtrees (see {@link TokenStore.purgeSessions}). */
  purgeSessions(cutoff: Date, limit: number): Promise<number> {
    return settle(() => this.table.purgeSessions(cutoff, limit));
  }

  /** Take a DPoP proof once until it expires (see {@link TokenStore.claimProof}). */
  claimProof(key: string, expiresAt: Date, now: Date): Promise<boolean> {
    return settle(() => this.proofs.claim(key, expiresAt, now));
  }

  /** Claim expiry warnings (see {@link TokenStore.markExpiring}). */
  markExpiring(withinSec: number, now: Date, limit: number): Promise<TokenRecord[]> {
    return settle(() => this.table.markExpiring(withinSec, now, limit));
  }

  /** Every org policy and their version, synchronously (see {@link TokenStore.readPolicies}). */
  readPolicies(): OrgPolicySet {
    return this.policies.read();
  }

  /** Store an org policy; the one it replaced, or `null` (see {@link TokenStore.setPolicy}). */
  setPolicy(policy: OrgPolicyRecord): Promise<OrgPolicyRecord | null> {
    return settle(() => this.policies.set(policy));
  }

  /** Change org access entries atomically (see {@link TokenStore.updateOrgAccess}). */
  updateOrgAccess(changes: readonly OrgAccessChange[]): Promise<string[]> {
    return settle(() => applyOrgAccess(this.table, changes));
  }

  /** The PAT records that may reach `org` (see {@link TokenStore.listForOrg}). */
  listForOrg(org: string): Promise<TokenRecord[]> {
    return settle(() => listOrg(this.table, org));
  }

  /** A service account, synchronously (see {@link TokenStore.readServiceAccount}). */
  readServiceAccount(org: string, name: string): ServiceAccountRecord | null {
    return this.accounts.read(org, name);
  }

  /** Every service account of `org` (see {@link TokenStore.listServiceAccounts}). */
  listServiceAccounts(org: string): Promise<ServiceAccountRecord[]> {
    return settle(() => this.accounts.list(org));
  }

  /** Store a service account when it follows the stored one (see {@link TokenStore.putServiceAccount}). */
  putServiceAccount(record: ServiceAccountRecord): Promise<boolean> {
    return settle(() => this.accounts.put(record));
  }
}
