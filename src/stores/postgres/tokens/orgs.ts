/**
 * @internal Org governance of {@link PostgresTokenStore}: the policy cache that
 * the chain reads keep valid, and the writes (`setPolicy`, `updateOrgAccess`).
 * @module
 */
import type { PoolClient, QueryResultRow } from 'pg';
import { UnavailableError, ValidationError } from '../../../errors';
import type { TokenRecord } from '../../types';
import type { ReadQuery } from './chains';
import { rowToRecord } from './rows';
import { storable } from './text';
import { MAX_ID_LENGTH } from './options';
import type { OrgAccessChange, OrgAccessEntry, OrgPolicyRecord, OrgPolicySet } from '../../orgs';
import type { StoreSql } from './sql';
import { applyChange, checkAccess, checkPolicy, orgAccessJson, policyValues, readOrgAccess, rowToPolicy } from './side-tables';

type Run = <T>(work: (client: PoolClient) => Promise<T>) => Promise<T>;

function versionOf(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^\d{1,19}$/.test(value) ? BigInt(value) : undefined;
}

function unavailable(err: unknown): never {
  if (err instanceof UnavailableError) throw err;
  throw new UnavailableError('token store unavailable: a stored policy or org access is malformed', { cause: err });
}

/**
 * @internal The policies of one store: cached while the newest governance
 * version any read returned equals the cached set's.
 *
 * @example
 * ```ts
 * const orgs = new OrgGovernance(sql, (work) => borrow(pool, errors, 5000, work));
 * orgs.seen('3'); // from a chain read
 * const set = await orgs.readPolicies();
 * ```
 */
export class OrgGovernance {
  private newest = -1n;
  private cache: { readonly n: bigint; readonly set: OrgPolicySet } | null = null;

  constructor(
    private readonly sql: StoreSql,
    private readonly run: Run,
  ) {}

  /** Note a governance version a read returned; anything that is not one is ignored (the next readPolicies fetches). */
  seen(value: unknown): void {
    const n = versionOf(value);
    if (n !== undefined && n > this.newest) this.newest = n;
  }

  /** The cached set while it is the newest seen; else every policy, in one statement, cached unless a newer set is. */
  readPolicies(): OrgPolicySet | Promise<OrgPolicySet> {
    const cached = this.cache;
    if (cached !== null && cached.n === this.newest) return cached.set;
    return this.fetch();
  }

  private async fetch(): Promise<OrgPolicySet> {
    const { rows } = await this.run((client) => client.query(this.sql.org.readPolicies));
    const n = versionOf(rows[0]?.version);
    if (n === undefined) throw new UnavailableError('token store unavailable: no governance version (run migrate())');
    let policies: OrgPolicyRecord[];
    try {
      policies = rows.filter((r) => r.org !== null).map(rowToPolicy);
    } catch (err) {
      unavailable(err);
    }
    const set: OrgPolicySet = Object.freeze({ version: n.toString(), policies: Object.freeze(policies) });
    this.seen(rows[0]?.version);
    // A fetch that raced a newer one (or a newer chain read) never installs an older set.
    if (this.cache === null || n >= this.cache.n) this.cache = { n, set };
    return set;
  }

  /** Upsert `policy`, moving the version, in one transaction; resolves to the policy it replaced. */
  async setPolicy(given: OrgPolicyRecord): Promise<OrgPolicyRecord | null> {
    const policy = checkPolicy(given);
    const { previous, version } = await this.run(async (client) => {
      await client.query('BEGIN');
      // The version row first: setPolicy calls serialise on it, so versions and sets move together.
      const bumped = await client.query(this.sql.org.bump);
      const locked = await client.query({ text: this.sql.org.lockPolicy, values: [policy.org] });
      await client.query({ text: this.sql.org.upsertPolicy, values: policyValues(policy) });
      await client.query('COMMIT');
      return { previous: locked.rows[0] as QueryResultRow | undefined, version: bumped.rows[0]?.version as unknown };
    });
    this.seen(version);
    if (previous === undefined) return null;
    try {
      return rowToPolicy(previous);
    } catch (err) {
      unavailable(err);
    }
  }

  /** Apply `changes` in one transaction, rows locked in id order; resolves to the ids changed. */
  async updateOrgAccess(changes: readonly OrgAccessChange[]): Promise<string[]> {
    const given: unknown = changes;
    if (!Array.isArray(given)) throw new ValidationError([{ path: 'changes', message: 'expected an array' }]);
    for (const c of changes) {
      if (typeof c !== 'object' || c === null || !Array.isArray(c.from))
        throw new ValidationError([{ path: 'changes', message: 'expected { id, from, entry }' }]);
      checkAccess([c.entry], 'changes.entry');
    }
    const ids = [...new Set(changes.map((c) => c.id).filter((id) => typeof id === 'string' && id.length <= MAX_ID_LENGTH && storable(id)))];
    if (ids.length === 0) return [];
    return this.run(async (client) => {
      await client.query('BEGIN');
      const { rows } = await client.query({ text: this.sql.org.lockAccess, values: [ids] });
      const lists = new Map<string, readonly OrgAccessEntry[]>();
      try {
        for (const row of rows) lists.set(String(row.id), readOrgAccess(row.org_access) ?? []);
      } catch (err) {
        await client.query('ROLLBACK');
        unavailable(err);
      }
      const changed = new Set<string>();
      for (const change of changes) {
        const list = lists.get(change.id);
        const next = list === undefined ? undefined : applyChange(list, change);
        if (next === undefined) continue;
        lists.set(change.id, next);
        changed.add(change.id);
      }
      if (changed.size > 0) {
        const json = JSON.stringify([...changed].map((id) => ({ id, a: JSON.parse(orgAccessJson(lists.get(id)) ?? 'null') as unknown })));
        await client.query({ text: this.sql.org.writeAccess, values: [json] });
      }
      await client.query('COMMIT');
      return [...changed];
    });
  }

  /** The PAT records that may reach `org`, in one statement (`read` names it when statements are prepared). */
  async listForOrg(org: string, read: (kind: string, text: string, values: unknown[]) => ReadQuery): Promise<TokenRecord[]> {
    if (typeof org !== 'string') throw new ValidationError([{ path: 'org', message: 'expected a string' }]);
    if (org.length === 0 || org.length > MAX_ID_LENGTH || !storable(org)) return [];
    const { rows } = await this.run((client) => client.query(read('org', this.sql.org.listForOrg, [org, `${org}/`])));
    return rows.map(rowToRecord);
  }
}
