/**
 * Stores for the CLI's dev instance: plain JSON files in one directory
 * (`SVC_HOME`), safe to share between several `svc` processes at once (C3).
 * Each change is a locked read-modify-write with an atomic replace, through
 * {@link JsonFile}; each read parses the file afresh, so a change made by one
 * process is seen by the next call in every other. Meant for a developer's
 * machine, not for production traffic: every call reads the whole file.
 * @module
 */
import { join } from 'node:path';
import { ValidationError, type IssueInput } from '../../errors';
import { checkOptions, isPlainObject } from '../../core/vocabulary';
import { JsonFile } from './json-file';
import type { OrgAccessChange, OrgPolicyRecord, OrgPolicySet } from '../orgs';
import { applyOrgAccess, listOrg, PolicyTable } from '../org-table';
import { timeOf, toEntry, toJson } from '../record-codec';
import { TokenTable } from '../token-table';
import { checkServiceAccount, ServiceAccountTable, type ServiceAccountRecord } from '../service-accounts';
import { checkPurge } from '../purge';
import type { InsertResult, TokenRecord, TokenStore, TokenUse } from '../types';

/**
 * Options of the file stores.
 *
 * @example
 * ```ts
 * const options: FileStoreOptions = { lockTimeoutMs: 3_000 };
 * ```
 */
export interface FileStoreOptions {
  /**
   * Budget of one change, lock wait included, before `UnavailableError` with
   * nothing written (default 4 000 ms: keep it below the service's
   * `storeTimeoutMs`, 5 000 ms by default, so a change reported as failed
   * never lands later).
   */
  lockTimeoutMs?: number;
  /** Age after which a lock file with no readable holder is broken (default 10 000 ms); a live holder's lock never is. */
  staleLockMs?: number;
}

const FORMAT_VERSION = 1;

/**
 * A {@link TokenStore} in `<dir>/tokens.json` (mode 0600; the directory is
 * created with mode 0700). Dates are kept as ISO 8601 strings. What is read back
 * is checked record by record; a corrupt file rejects every call with
 * `UnavailableError` and is never overwritten.
 *
 * @example
 * ```ts
 * import os from 'node:os';
 * import { createAuth } from 'svc-auth';
 * import { FileTokenStore, FileMembershipStore } from 'svc-auth/stores';
 * const home = process.env.SVC_HOME ?? `${os.homedir()}/.svc`;
 * const auth = createAuth({
 *   issuer: 'http://127.0.0.1', keys,
 *   tokens: new FileTokenStore(home),
 *   members: new FileMembershipStore(home),
 * });
 * ```
 */
export class FileTokenStore implements TokenStore {
  /** The JSON file behind this store. */
  readonly file: JsonFile<TokenTable>;
  /** The orgs' policies, `<dir>/org-policies.json`. */
  private readonly policies: JsonFile<PolicyTable>;
  /** The service accounts, `<dir>/service-accounts.json`, under a lock of their own as the policies. */
  private readonly accounts: JsonFile<ServiceAccountTable>;

  constructor(dir: string, options: FileStoreOptions = {}) {
    this.file = new JsonFile<TokenTable>(join(checkDir(dir), 'tokens.json'), {
      ...timing(options),
      mode: 0o600,
      label: 'token store',
      parse: parseTokens,
      serialize: (table) => ({ version: FORMAT_VERSION, tokens: Array.from(table.entries(), toJson) }),
    });
    // The policies have a file (and lock) of their own: a policy change never waits for, or
    // rewrites, the records, and the request path reads this small file only.
    this.policies = new JsonFile<PolicyTable>(join(checkDir(dir), 'org-policies.json'), {
      ...timing(options),
      mode: 0o600,
      label: 'org policy store',
      parse: (data) => PolicyTable.load(data),
      serialize: (table) => table.json(),
    });
    this.accounts = new JsonFile<ServiceAccountTable>(join(checkDir(dir), 'service-accounts.json'), {
      ...timing(options),
      mode: 0o600,
      label: 'service account store',
      parse: (data) => new ServiceAccountTable().loaded(isPlainObject(data) ? data.accounts : undefined),
      serialize: (table) => ({ version: FORMAT_VERSION, accounts: table.json() }),
    });
  }

  /** A service account (see {@link TokenStore.readServiceAccount}), read from the file afresh. */
  async readServiceAccount(org: string, name: string): Promise<ServiceAccountRecord | null> {
    return ((await this.accounts.read()) ?? new ServiceAccountTable()).read(org, name);
  }

  /** Every service account of `org`, by name (see {@link TokenStore.listServiceAccounts}). */
  async listServiceAccounts(org: string): Promise<ServiceAccountRecord[]> {
    return ((await this.accounts.read()) ?? new ServiceAccountTable()).list(org);
  }

  /** Store a service account in one locked compare-and-set (see {@link TokenStore.putServiceAccount}). */
  async putServiceAccount(record: ServiceAccountRecord): Promise<boolean> {
    checkServiceAccount(record, 'date'); // bad input never waits for, or creates, the file
    let stored = false;
    await this.accounts.update((current) => {
      const table = current ?? new ServiceAccountTable();
      stored = table.put(record);
      return table;
    });
    return stored;
  }

  /** A change gives up with nothing written after this long (`lockTimeoutMs`); see {@link TokenStore.changeBudgetMs}. */
  get changeBudgetMs(): number {
    return this.file.budgetMs;
  }

  async insert(record: TokenRecord, now: Date): Promise<InsertResult> {
    // Check the input before taking the lock: bad input must not wait for, or create, anything.
    toEntry(record, 'date', 'record');
    timeOf(now, 'now');
    let result: InsertResult = 'ok';
    await this.file.update((current) => {
      const table = current ?? new TokenTable();
      result = table.insert(record, now);
      return result === 'ok' ? table : undefined;
    });
    return result;
  }

  async readChain(id: string): Promise<TokenRecord[] | null> {
    if (typeof id !== 'string') throw new ValidationError([{ path: 'id', message: 'expected a string' }]);
    const table = await this.file.read();
    return table ? table.readChain(id) : null;
  }

  async listByOwner(ownerId: string): Promise<TokenRecord[]> {
    if (typeof ownerId !== 'string') throw new ValidationError([{ path: 'ownerId', message: 'expected a string' }]);
    const table = await this.file.read();
    return table ? table.listByOwner(ownerId) : [];
  }

  async revoke(ids: readonly string[], at: Date): Promise<string[]> {
    new TokenTable().revoke(ids, at); // checks the arguments before taking the lock
    let revoked: string[] = [];
    await this.file.update((current) => {
      if (current === undefined) return undefined;
      revoked = current.revoke(ids, at);
      return revoked.length > 0 ? current : undefined;
    });
    return revoked;
  }

  /**
   * Record last-used times (see {@link TokenStore.touch}): one locked write for
   * the whole batch, none when nothing moves forward.
   */
  async touch(ids: readonly string[], at: Date): Promise<void> {
    new TokenTable().touch(ids, at); // checks the arguments before taking the lock
    await this.file.update((current) => {
      if (current === undefined) return undefined;
      return current.touch(ids, at) > 0 ? current : undefined;
    });
  }

  /** Record uses with their addresses (see {@link TokenStore.recordUse}): one locked write for the batch, none when nothing changes. */
  async recordUse(uses: readonly TokenUse[], at: Date): Promise<void> {
    new TokenTable().recordUse(uses, at); // checks the arguments before taking the lock
    await this.file.update((current) => {
      if (current === undefined) return undefined;
      return current.recordUse(uses, at) > 0 ? current : undefined;
    });
  }

  /**
   * Claim expiry warnings (see {@link TokenStore.markExpiring}) in one locked
   * read-modify-write: two processes sweeping at once take the lock in turn,
   * and the second finds the marks the first wrote.
   */
  async markExpiring(withinSec: number, now: Date, limit: number): Promise<TokenRecord[]> {
    new TokenTable().markExpiring(withinSec, now, limit); // checks the arguments before taking the lock
    let marked: TokenRecord[] = [];
    await this.file.update((current) => {
      if (current === undefined) return undefined;
      marked = current.markExpiring(withinSec, now, limit);
      return marked.length > 0 ? current : undefined;
    });
    return marked;
  }

  /**
   * Remove ended sessions with their subtrees (see {@link TokenStore.purgeSessions})
   * in one locked read-modify-write; nothing is written when none is removed.
   */
  async purgeSessions(cutoff: Date, limit: number): Promise<number> {
    checkPurge(cutoff, limit); // checks the arguments before taking the lock
    let removed = 0;
    await this.file.update((current) => {
      if (current === undefined) return undefined;
      removed = current.purgeSessions(cutoff, limit);
      return removed > 0 ? current : undefined;
    });
    return removed;
  }

  /** Every org policy and their version (see {@link TokenStore.readPolicies}), read from the file afresh. */
  async readPolicies(): Promise<OrgPolicySet> {
    return ((await this.policies.read()) ?? new PolicyTable()).read();
  }

  /** Store an org's policy in one locked read-modify-write (see {@link TokenStore.setPolicy}). */
  async setPolicy(policy: OrgPolicyRecord): Promise<OrgPolicyRecord | null> {
    new PolicyTable().set(policy); // checks the policy before taking the lock
    let replaced: OrgPolicyRecord | null = null;
    await this.policies.update((current) => {
      const table = current ?? new PolicyTable();
      replaced = table.set(policy);
      return table;
    });
    return replaced;
  }

  /** Change tokens' access to orgs in one locked read-modify-write (see {@link TokenStore.updateOrgAccess}). */
  async updateOrgAccess(changes: readonly OrgAccessChange[]): Promise<string[]> {
    applyOrgAccess(new TokenTable(), changes); // checks the changes before taking the lock
    let changed: string[] = [];
    await this.file.update((current) => {
      if (current === undefined) return undefined;
      changed = applyOrgAccess(current, changes);
      return changed.length > 0 ? current : undefined;
    });
    return changed;
  }

  /** The PAT records that may reach `org` (see {@link TokenStore.listForOrg}). */
  async listForOrg(org: string): Promise<TokenRecord[]> {
    listOrg(new TokenTable(), org); // checks the org before reading
    return listOrg((await this.file.read()) ?? new TokenTable(), org);
  }
}

function parseTokens(data: unknown): TokenTable {
  if (!isPlainObject(data) || data.version !== FORMAT_VERSION || !Array.isArray(data.tokens)) {
    throw new ValidationError([{ path: '', message: `expected { "version": ${FORMAT_VERSION}, "tokens": [...] }` }]);
  }
  const table = new TokenTable();
  data.tokens.forEach((raw: unknown, i) => table.load(raw, `tokens[${i}]`));
  return table;
}

/**
 * @internal A store directory as given: a non-empty path without NUL.
 *
 * @example
 * ```ts
 * join(checkDir(dir), 'members.json');
 * ```
 */
export function checkDir(dir: unknown): string {
  if (typeof dir !== 'string' || dir.length === 0 || dir.includes('\0')) {
    throw new ValidationError([{ path: 'dir', message: 'expected a non-empty directory path' }]);
  }
  return dir;
}

const TIMING_KEYS = ['lockTimeoutMs', 'staleLockMs'];

/**
 * @internal Only the timing fields pass on; JsonFile checks their values. A misspelt one is refused.
 *
 * @example
 * ```ts
 * new JsonFile(path, { ...timing(options), mode: 0o600, label, parse, serialize });
 * ```
 */
export function timing(options: unknown): { lockTimeoutMs?: number; staleLockMs?: number } {
  if (!isPlainObject(options)) throw new ValidationError([{ path: 'options', message: 'expected an options object' }]);
  const issues: IssueInput[] = [];
  if (!checkOptions(options, TIMING_KEYS, 'options', issues)) throw new ValidationError(issues);
  const out: { lockTimeoutMs?: number; staleLockMs?: number } = {};
  if (options.lockTimeoutMs !== undefined) out.lockTimeoutMs = options.lockTimeoutMs as number;
  if (options.staleLockMs !== undefined) out.staleLockMs = options.staleLockMs as number;
  return out;
}
