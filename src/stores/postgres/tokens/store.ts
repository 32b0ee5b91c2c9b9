/**
 * A {@link TokenStore} on PostgreSQL, for several servers sharing one table.
 *
 * `pg` is an optional peer dependency: this module imports its types only and
 * calls nothing but `pool.connect()`, so the root package never loads `pg`.
 * @module
 */
import { checkAccess, claimProofKey, pgAccounts } from './side-tables';
import type { Pool, PoolClient } from 'pg';
import { ConflictError, UnavailableError, ValidationError } from '../../../errors';
import { timeOf, toEntry } from '../../record-codec';
import type { ChainBatcher } from './batch';
import { checkIds, checkStorable, storable } from './text';
import { borrow, clientErrors, type ClientErrors } from '../client';
import { buildSql, migrateLockKey, nameLockKey, type StoreSql, type TableName } from './sql';
import { MAX_ID_LENGTH, MAX_REVOKE_PASSES, MIN_MIGRATE_TIMEOUT_MS, readOptions, type PostgresTokenStoreOptions } from './options';
import { first, insertValues, rowToRecord } from './rows';
import { ChainReader, chainBatcher, type Found, type ReadQuery } from './chains';
import type { InsertResult, TokenRecord, TokenStore, TokenUse } from '../../types';
import { SHARED_READ, type SharedReadSource } from '../../views';
import { checkMark, checkUses, soonestFirst } from '../../usage';
import { checkPurge } from '../../purge';
import { usesJson } from './usage';
import { OrgGovernance } from './orgs';
import type { OrgAccessChange, OrgPolicyRecord, OrgPolicySet } from '../../orgs';

export type { PostgresTokenStoreOptions };
type Accounts = ReturnType<typeof pgAccounts>;

/**
 * Token records in a PostgreSQL table, safe for several servers at once.
 *
 * - `readChain` and `listByOwner` are one statement each (one round trip).
 *   Concurrent `readChain` calls are coalesced: those that arrive together, or
 *   while earlier reads are on the wire, share one statement, and callers of the
 *   same id share one read, but a call never joins a read already sent (T5).
 * - A chain the store has read before is read again leanly: each row's version
 *   and `revoked_at` by primary key, no recursion, no other column. A row that
 *   changed in any way is read in full again, in a second statement
 *   (`recordCacheSize`).
 * - A connection that fails while the store holds it (failover, restart,
 *   `pg_terminate_backend`) fails the calls using it with `UnavailableError`
 *   and is destroyed; it never ends the process with an unhandled `'error'`.
 * - Text PostgreSQL cannot hold (NUL, lone surrogates) is refused by `insert` with `ValidationError`; lookups by such a value answer "unknown".
 * - `insert` of a PAT is a short transaction (BEGIN, advisory lock on
 *   owner+name, one checking insert, COMMIT: four round trips), because the
 *   name check must see every competing insert that committed before it; a
 *   session or component record (no name to check) is one statement.
 * - `revoke` is one recursive UPDATE, run once more to confirm that no child was inserted under a row while it was being revoked (normally two round trips).
 * - Every failure (timeout, refused or dropped connection, any database error)
 *   rejects with `UnavailableError`, with the driver's error as `cause` and no
 *   SQL or values in the message; a connection that failed is destroyed, never reused.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createAuth, generateKeyRing } from 'svc-auth';
 * import { PostgresTokenStore } from 'svc-auth/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on('error', () => {}); // an idle connection dropping must not crash the process
 * const tokens = new PostgresTokenStore({ pool });
 * await tokens.migrate();
 * const auth = createAuth({ issuer: 'svc', keys: await generateKeyRing(), members, tokens });
 * ```
 */
export class PostgresTokenStore implements TokenStore {
  private readonly pool: Pool;
  private readonly name: TableName;
  private readonly sql: StoreSql;
  private readonly timeoutMs: number;
  private readonly prepare: boolean;
  private readonly chains: ChainBatcher<Found>;
  private readonly errors: ClientErrors;
  private readonly orgs: OrgGovernance;
  /** Service accounts: a read rides on the chain reads' batch, a change is one transaction (side-tables/accounts.ts). */
  declare readonly readServiceAccount: Accounts['readServiceAccount'];
  declare readonly listServiceAccounts: Accounts['listServiceAccounts'];
  declare readonly putServiceAccount: Accounts['putServiceAccount'];

  constructor(options: PostgresTokenStoreOptions) {
    const checked = readOptions(options);
    const timeout = checked.timeoutMs;
    this.pool = checked.pool;
    this.prepare = checked.prepare;
    this.name = checked.name;
    this.sql = buildSql(this.name);
    this.timeoutMs = timeout;
    this.errors = clientErrors(this.pool);
    const orgs = (this.orgs = new OrgGovernance(this.sql, (work) => this.run(timeout, work)));
    const seen = (v: unknown): void => orgs.seen(v);
    const reader = new ChainReader(this.sql, (kind, text, values) => this.read(kind, text, values), checked.recordCacheSize, seen);
    const chains = (this.chains = chainBatcher(reader, (ms, work) => this.run(ms, work), timeout));
    Object.assign(
      this,
      pgAccounts(
        this.sql.accounts,
        (work) => this.run(timeout, work),
        (key, shared) => chains.readAccount(key, shared),
        timeout,
      ),
    );
  }

  /** The quoted table name this store uses, e.g. `"auth"."tokens"`. */
  get table(): string {
    return this.name.quoted;
  }

  /**
   * Create the table and its indexes, or add what an older version lacks.
   * Safe to run from several servers at once (an advisory lock serialises it)
   * and to run again. Its time limit is at least 60 s.
   *
   * @example
   * ```ts
   * await new PostgresTokenStore({ pool }).migrate();
   * ```
   */
  async migrate(): Promise<void> {
    const timeout = Math.max(this.timeoutMs, MIN_MIGRATE_TIMEOUT_MS);
    await this.run(timeout, async (client) => {
      await client.query('BEGIN');
      await client.query({ text: this.sql.beginLocked, values: [String(timeout), migrateLockKey(this.name)] });
      for (const statement of this.sql.migrate) await client.query(statement);
      await client.query('COMMIT');
    });
  }

  /** Store a record ({@link TokenStore.insert}); a duplicate id is a `ConflictError`. @example `await store.insert(record, new Date()); // 'ok' | 'name_taken' | 'parent_inactive'` */
  async insert(record: TokenRecord, now: Date): Promise<InsertResult> {
    const entry = toEntry(record, 'date', 'record');
    checkStorable(entry, 'record');
    const nowMs = timeOf(now, 'now');
    const values = insertValues(entry, nowMs, checkAccess(record.orgAccess, 'record.orgAccess'));
    const verdict = await this.run(this.timeoutMs, async (client) => {
      if (entry.kind !== 'pat') return first(await client.query({ text: this.sql.insert, values }));
      await client.query('BEGIN');
      await client.query({
        text: this.sql.beginLocked,
        values: [String(this.timeoutMs), nameLockKey(this.name, entry.ownerId, entry.name)],
      });
      const row = first(await client.query({ text: this.sql.insert, values }));
      await client.query(row?.inserted === true ? 'COMMIT' : 'ROLLBACK');
      return row;
    });
    if (verdict === undefined) throw new UnavailableError('token store unavailable: unexpected answer to insert');
    if (verdict.parent_ok !== true) return 'parent_inactive';
    if (verdict.name_ok !== true) return 'name_taken';
    if (verdict.inserted !== true) throw new ConflictError('a token record with this id already exists');
    return 'ok';
  }

  /**
   * The record and its ancestors, nearest first, in one statement shared with
   * concurrent calls; `null` when unknown.
   *
   * @example
   * ```ts
   * const chain = await store.readChain(tokenId); // [token, parent, …] or null
   * ```
   */
  async readChain(id: string): Promise<TokenRecord[] | null> {
    if (typeof id !== 'string') throw new ValidationError([{ path: 'id', message: 'expected a string' }]);
    // An id PostgreSQL cannot hold was never stored: unknown, not a database error.
    if (id.length === 0 || id.length > MAX_ID_LENGTH || !storable(id)) return null;
    return this.chains.read(id);
  }

  // `readChain` as shared views for the request path (SHARED_READ in stores/views.ts); set here, not declared, so that the declarations never name the private symbol.
  static {
    (PostgresTokenStore.prototype as SharedReadSource)[SHARED_READ] = function (this: PostgresTokenStore, id: string, withinMs: number) {
      // Declines when readChain was replaced, or when the caller's deadline is shorter than this store's own.
      if (this.readChain !== PostgresTokenStore.prototype.readChain || typeof id !== 'string' || !(withinMs >= this.timeoutMs))
        return undefined;
      return id.length === 0 || id.length > MAX_ID_LENGTH || !storable(id) ? Promise.resolve(null) : this.chains.read(id, true);
    };
  }

  /** Every record of one owner, in creation order. @example `const records = await store.listByOwner('alice');` */
  async listByOwner(ownerId: string): Promise<TokenRecord[]> {
    if (typeof ownerId !== 'string') throw new ValidationError([{ path: 'ownerId', message: 'expected a string' }]);
    if (ownerId.length === 0 || ownerId.length > MAX_ID_LENGTH || !storable(ownerId)) return [];
    const rows = await this.run(
      this.timeoutMs,
      async (client) => (await client.query(this.read('owner', this.sql.listByOwner, [ownerId]))).rows,
    );
    return rows.map(rowToRecord);
  }

  /** Revoke ids and their subtrees at `at`; resolves to the ids newly revoked. @example `await store.revoke([tokenId], new Date());` */
  async revoke(ids: readonly string[], at: Date): Promise<string[]> {
    checkIds(ids);
    const atMs = timeOf(at, 'at');
    const wanted = [...new Set(ids.filter((id) => id.length > 0 && id.length <= MAX_ID_LENGTH && storable(id)))];
    if (wanted.length === 0) return [];
    return this.run(this.timeoutMs, async (client) => {
      const revoked: string[] = [];
      // A child whose insert held its parent's row lock commits before the parent's
      // revocation does, but after this statement's snapshot: the next pass sees it.
      for (let pass = 0; pass < MAX_REVOKE_PASSES; pass++) {
        const { rows } = await client.query({ text: this.sql.revoke, values: [wanted, new Date(atMs)] });
        if (rows.length === 0) return revoked;
        for (const row of rows) revoked.push(String(row.id));
      }
      throw new UnavailableError('token store unavailable: revocation did not settle');
    });
  }

  /** Record last-used times ({@link TokenStore.touch}) in one statement, each moved forward only. @example `await pgStore.touch([id], new Date());` */
  async touch(ids: readonly string[], at: Date): Promise<void> {
    checkIds(ids);
    const atMs = timeOf(at, 'at');
    const wanted = [...new Set(ids.filter((id) => id.length > 0 && id.length <= MAX_ID_LENGTH))];
    if (wanted.length === 0) return;
    await this.run(this.timeoutMs, async (client) => {
      await client.query({ text: this.sql.touch, values: [wanted, new Date(atMs)] });
    });
  }

  /**
   * Record uses with their addresses (see {@link TokenStore.recordUse}): one
   * statement for the batch, merging each row's addresses in SQL.
   *
   * @example
   * ```ts
   * await pgStore.recordUse([{ id: tokenId, address: '203.0.113.7', userAgent: 'curl/8.5.0' }], new Date());
   * ```
   */
  async recordUse(uses: readonly TokenUse[], at: Date): Promise<void> {
    const wanted = checkUses(uses).filter((u) => u.id.length <= MAX_ID_LENGTH && storable(u.id));
    const atMs = timeOf(at, 'at');
    if (wanted.length === 0) return;
    const values = [usesJson(wanted), new Date(atMs), new Date(atMs).toISOString()];
    await this.run(this.timeoutMs, (client) => client.query({ text: this.sql.usage.recordUse, values }));
  }

  /**
   * Claim expiry warnings (see {@link TokenStore.markExpiring}): one
   * conditional `UPDATE … RETURNING`, so two servers sweeping at once warn once.
   *
   * @example
   * ```ts
   * const due = await pgStore.markExpiring(7 * 86_400, new Date(), 1000);
   * ```
   */
  async markExpiring(withinSec: number, now: Date, limit: number): Promise<TokenRecord[]> {
    const m = checkMark(withinSec, now, limit);
    const { rows } = await this.run(this.timeoutMs, (client) =>
      client.query({
        text: this.sql.usage.markExpiring,
        values: [m.withinSec, new Date(m.nowMs), new Date(m.nowMs + m.withinSec * 1000), m.limit],
      }),
    );
    return rows.map(rowToRecord).sort(soonestFirst);
  }

  /** Remove ended sessions with subtrees ({@link TokenStore.purgeSessions}) in one `DELETE`. @example `await pgStore.purgeSessions(cutoff, 1000);` */
  async purgeSessions(cutoff: Date, limit: number): Promise<number> {
    const { cutoffMs, limit: max } = checkPurge(cutoff, limit);
    const values = [new Date(cutoffMs), max];
    const { rows } = await this.run(this.timeoutMs, (client) => client.query({ text: this.sql.purge.purgeSessions, values }));
    return rows.length;
  }

  /** Take a DPoP proof once for every server on this database ({@link TokenStore.claimProof}). @example `await pgStore.claimProof(key, until, new Date());` */
  claimProof(key: string, expiresAt: Date, now: Date): Promise<boolean> {
    const query = (text: string, values: unknown[]) => this.run(this.timeoutMs, (c) => c.query({ text, values }));
    return claimProofKey(this.sql.proofs, query, key, expiresAt, now);
  }

  /** Every org policy, cached while no read returned a newer version ({@link TokenStore.readPolicies}). @example `await pgStore.readPolicies();` */
  readPolicies = (): OrgPolicySet | Promise<OrgPolicySet> => this.orgs.readPolicies();
  /** Store an org policy, moving the version, in one transaction. @example `await pgStore.setPolicy(policy);` */
  setPolicy = (policy: OrgPolicyRecord): Promise<OrgPolicyRecord | null> => this.orgs.setPolicy(policy);
  /** Change org access entries in one transaction. @example `await pgStore.updateOrgAccess([change]);` */
  updateOrgAccess = (changes: readonly OrgAccessChange[]): Promise<string[]> => this.orgs.updateOrgAccess(changes);

  /** The PAT records that may reach `org`, one statement. @example `await pgStore.listForOrg('acme');` */
  listForOrg = (org: string): Promise<TokenRecord[]> => this.orgs.listForOrg(org, (kind, text, values) => this.read(kind, text, values));

  /** A read's query config: named (prepared once per connection) unless `prepare` is off. */
  private read(kind: string, text: string, values: unknown[]): ReadQuery {
    return this.prepare ? { name: `svc_auth_${kind}_${this.sql.tag}`, text, values } : { text, values };
  }

  /** Borrow a connection for `work` under a deadline (see `borrow`). */
  private run<T>(timeoutMs: number, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return borrow(this.pool, this.errors, timeoutMs, work);
  }
}
