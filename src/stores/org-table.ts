/**
 * Organization governance (G1-G4) for the in-process stores: the org
 * policies, and the changes to the `orgAccess` entries a {@link TokenTable}
 * keeps on its records. Everything is synchronous, so a memory store's
 * change is atomic, and a file store's runs under its lock.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import type { OrgAccessChange, OrgPolicyRecord, OrgPolicySet } from './orgs';
import { ORG, readOrgAccess, type StoredAccess } from './orgs';
import { toRecord } from './record-codec';
import type { TokenTable } from './token-table';
import type { TokenRecord } from './types';

const MAX_EXEMPT = 100;
const MAX_ID = 256;

/**
 * @internal Check `raw` as an {@link OrgPolicyRecord} and copy it, frozen (dates as `form` says).
 *
 * @example
 * ```ts
 * checkPolicy({ org: 'ACME' }, 'date'); // throws a ValidationError
 * ```
 */
export function checkPolicy(raw: unknown, form: 'date' | 'iso', path = 'policy'): OrgPolicyRecord {
  const issues: IssueInput[] = [];
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (typeof raw !== 'object' || raw === null) issues.push({ path, message: 'expected an org policy object' });
  const org = typeof r.org === 'string' && ORG.test(r.org) ? r.org : '';
  if (org === '') issues.push({ path: `${path}.org`, message: 'expected a lowercase organization name' });
  const days = r.maxLifetimeDays;
  if (!(days === null || (Number.isInteger(days) && (days as number) >= 1 && (days as number) <= 365))) {
    issues.push({ path: `${path}.maxLifetimeDays`, message: 'expected null or a whole number of days from 1 to 365' });
  }
  for (const key of ['requireApproval', 'allowGlobal', 'requireAllowedIps'] as const) {
    if (typeof r[key] !== 'boolean') issues.push({ path: `${path}.${key}`, message: 'expected a boolean' });
  }
  const exempt = r.exempt;
  const okExempt =
    Array.isArray(exempt) &&
    exempt.length <= MAX_EXEMPT &&
    exempt.every((u: unknown) => typeof u === 'string' && u.length > 0 && u.length <= MAX_ID);
  if (!okExempt) issues.push({ path: `${path}.exempt`, message: `expected at most ${MAX_EXEMPT} user ids` });
  if (typeof r.updatedBy !== 'string' || r.updatedBy.length === 0 || r.updatedBy.length > MAX_ID) {
    issues.push({ path: `${path}.updatedBy`, message: 'expected a user id' });
  }
  const at = r.updatedAt;
  const ms = form === 'date' ? (at instanceof Date ? at.getTime() : Number.NaN) : typeof at === 'string' ? Date.parse(at) : Number.NaN;
  if (!Number.isFinite(ms)) issues.push({ path: `${path}.updatedAt`, message: 'expected a valid date' });
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({
    org,
    maxLifetimeDays: days as number | null,
    requireApproval: r.requireApproval as boolean,
    allowGlobal: r.allowGlobal as boolean,
    requireAllowedIps: r.requireAllowedIps as boolean,
    exempt: Object.freeze([...(exempt as string[])]),
    updatedBy: r.updatedBy as string,
    updatedAt: new Date(ms),
  });
}

/**
 * @internal The org policies of an in-process store, with a version that moves on every change.
 *
 * @example
 * ```ts
 * const t = new PolicyTable();
 * t.read().version; // '0'
 * ```
 */
export class PolicyTable {
  private readonly byOrg = new Map<string, OrgPolicyRecord>();
  private counter = 0;
  private snapshot: OrgPolicySet | undefined;

  /** Every policy and the version, frozen; the same object until a change. */
  read(): OrgPolicySet {
    this.snapshot ??= Object.freeze({
      version: String(this.counter),
      policies: Object.freeze([...this.byOrg.values()].map(copyPolicy)),
    });
    return this.snapshot;
  }

  /** Store a checked copy of `raw`; the one it replaced, or `null`. */
  set(raw: unknown): OrgPolicyRecord | null {
    const policy = checkPolicy(raw, 'date');
    const before = this.byOrg.get(policy.org) ?? null;
    this.byOrg.set(policy.org, policy);
    this.counter += 1;
    this.snapshot = undefined;
    return before === null ? null : copyPolicy(before);
  }

  /** The table as a file keeps it: the version counter and the policies, dates as ISO strings. */
  json(): { version: 1; counter: number; policies: unknown[] } {
    const policies = [...this.byOrg.values()].map((p) => ({ ...p, exempt: [...p.exempt], updatedAt: p.updatedAt.toISOString() }));
    return { version: 1, counter: this.counter, policies };
  }

  /** A table read back from {@link PolicyTable.json}'s form; `ValidationError` naming the bad entry otherwise. */
  static load(data: unknown): PolicyTable {
    const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
    const counter = d.counter;
    if (d.version !== 1 || !Array.isArray(d.policies) || !Number.isSafeInteger(counter) || (counter as number) < 0) {
      throw new ValidationError([{ path: '', message: 'expected { "version": 1, "counter": <n>, "policies": [...] }' }]);
    }
    const table = new PolicyTable();
    d.policies.forEach((raw: unknown, i) => {
      const policy = checkPolicy(raw, 'iso', `policies[${i}]`);
      if (table.byOrg.has(policy.org)) throw new ValidationError([{ path: `policies[${i}].org`, message: 'repeated org' }]);
      table.byOrg.set(policy.org, policy);
    });
    table.counter = counter as number;
    return table;
  }
}

// A policy's date is its own per reader: a frozen Date can still be changed with setTime.
function copyPolicy(p: OrgPolicyRecord): OrgPolicyRecord {
  return Object.freeze({ ...p, updatedAt: new Date(p.updatedAt.getTime()) });
}

/**
 * @internal Apply `changes` to `table` (see `TokenStore.updateOrgAccess`): all
 * are checked before any is applied; the ids changed.
 *
 * @example
 * ```ts
 * applyOrgAccess(table, [{ id, from: ['pending', 'none'], entry }]); // [id]
 * ```
 */
export function applyOrgAccess(table: TokenTable, changes: unknown): string[] {
  if (!Array.isArray(changes)) throw new ValidationError([{ path: 'changes', message: 'expected an array' }]);
  const issues: IssueInput[] = [];
  const checked = changes.map((c: unknown, i) => checkChange(c, `changes[${i}]`, issues));
  if (issues.length > 0) throw new ValidationError(issues);
  const changed: string[] = [];
  for (const c of checked) {
    const row = table.entry(c.id);
    if (row === undefined) continue;
    const list = row.orgAccess ?? [];
    const at = list.findIndex((e) => e.org === c.entry.org);
    const current = at < 0 ? 'none' : (list[at] as StoredAccess).status;
    if (!c.from.includes(current)) continue;
    const old = at < 0 ? undefined : list[at];
    const next: StoredAccess = Object.freeze({
      ...c.entry,
      justification: c.entry.justification ?? old?.justification ?? null,
      requestedAt: c.entry.requestedAt ?? old?.requestedAt ?? null,
    });
    row.orgAccess = Object.freeze(at < 0 ? [...list, next] : list.map((e, i) => (i === at ? next : e)));
    if (!changed.includes(c.id)) changed.push(c.id);
  }
  return changed;
}

function checkChange(raw: unknown, path: string, issues: IssueInput[]): { id: string; from: string[]; entry: StoredAccess } {
  const c = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<OrgAccessChange>;
  const id = typeof c.id === 'string' ? c.id : '';
  if (id === '') issues.push({ path: `${path}.id`, message: 'expected a token id' });
  const okFrom = ['pending', 'approved', 'denied', 'revoked', 'none'];
  const rawFrom: unknown = c.from;
  const from: string[] =
    Array.isArray(rawFrom) && rawFrom.every((f: unknown) => typeof f === 'string' && okFrom.includes(f))
      ? (rawFrom as string[]).slice()
      : [];
  if (from.length === 0) issues.push({ path: `${path}.from`, message: `expected a non-empty list of ${okFrom.join(', ')}` });
  const toMs = (v: unknown, p: string): number | null => {
    if (v instanceof Date && Number.isFinite(v.getTime())) return v.getTime();
    issues.push({ path: p, message: 'expected a valid Date or null' });
    return null;
  };
  const entries = readOrgAccess([c.entry], toMs, `${path}.entry`, issues);
  return { id, from, entry: entries?.[0] ?? (null as unknown as StoredAccess) };
}

/**
 * @internal The PAT records that may reach `org` (see `TokenStore.listForOrg`), in creation order.
 *
 * @example
 * ```ts
 * listOrg(table, 'acme').length;
 * ```
 */
export function listOrg(table: TokenTable, org: unknown): TokenRecord[] {
  if (typeof org !== 'string') throw new ValidationError([{ path: 'org', message: 'expected a string' }]);
  const name = org.toLowerCase();
  const out: TokenRecord[] = [];
  for (const e of table.entries()) {
    if (e.kind !== 'pat') continue;
    const reaches =
      e.scopes === null ||
      e.scopes.some((s) => s.resource === undefined || s.resource === name || s.resource.startsWith(`${name}/`)) ||
      (e.orgAccess?.some((a) => a.org === name) ?? false);
    if (reaches) out.push(toRecord(e));
  }
  return out;
}
