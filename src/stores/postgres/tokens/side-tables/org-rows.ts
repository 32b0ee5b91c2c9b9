/**
 * @internal Org access entries and policies as PostgreSQL holds them: the
 * `org_access` jsonb of a token row (dates as ISO text) and the rows of the
 * policies table. What is read back is checked like every other column: a
 * hand-edited value that is not valid throws, and the callers fail closed.
 * @module
 */
import type { QueryResultRow } from 'pg';
import { ValidationError } from '../../../../errors';
import type { OrgAccessChange, OrgAccessEntry, OrgAccessStatus, OrgPolicyRecord } from '../../../orgs';

const STATUSES: ReadonlySet<string> = new Set<OrgAccessStatus>(['pending', 'approved', 'denied', 'revoked']);
const MAX_TEXT = 1024;
const MAX_ID = 512;

/** An org access list that is not valid: the message never quotes the value. */
function bad(what: string): never {
  throw new TypeError(`malformed org access: ${what}`);
}

function text(value: unknown, max: number, what: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || value.length > max) bad(what);
  return value;
}

function time(value: unknown, what: string): Date | null {
  if (value === null || value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) bad(what);
  return new Date(ms);
}

/**
 * @internal Check an org access list (from a row, JSON dates as text, or from a
 * caller, dates as `Date`): an array of entries, one per lowercase org.
 * `undefined` for SQL NULL (no entries). Throws `TypeError` otherwise.
 */
export function readOrgAccess(value: unknown): readonly OrgAccessEntry[] | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Array.isArray(value)) bad('not an array');
  const seen = new Set<string>();
  const out: OrgAccessEntry[] = [];
  for (const raw of value as unknown[]) {
    if (typeof raw !== 'object' || raw === null) bad('an entry is not an object');
    const e = raw as Record<string, unknown>;
    const org = e.org;
    if (typeof org !== 'string' || org.length === 0 || org.length > MAX_ID || org !== org.toLowerCase() || seen.has(org)) bad('org');
    seen.add(org);
    if (typeof e.status !== 'string' || !STATUSES.has(e.status)) bad('status');
    out.push(
      Object.freeze({
        org,
        status: e.status as OrgAccessStatus,
        justification: text(e.justification, MAX_TEXT, 'justification'),
        requestedAt: time(e.requestedAt, 'requestedAt'),
        reason: text(e.reason, MAX_TEXT, 'reason'),
        decidedBy: text(e.decidedBy, MAX_ID, 'decidedBy'),
        decidedAt: time(e.decidedAt, 'decidedAt'),
      }),
    );
  }
  return Object.freeze(out);
}

/** @internal An org access list as the `org_access` value (JSON text), `null` when empty. */
export function orgAccessJson(entries: readonly OrgAccessEntry[] | undefined): string | null {
  if (entries === undefined || entries.length === 0) return null;
  const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
  return JSON.stringify(entries.map((e) => ({ ...e, requestedAt: iso(e.requestedAt), decidedAt: iso(e.decidedAt) })));
}

/**
 * @internal Apply one change to a list (see {@link OrgAccessChange}): `undefined`
 * when the current status for the org is not in `from` (nothing changes).
 */
export function applyChange(list: readonly OrgAccessEntry[], change: OrgAccessChange): OrgAccessEntry[] | undefined {
  const org = change.entry.org;
  const current = list.find((e) => e.org === org);
  if (!change.from.includes(current === undefined ? 'none' : current.status)) return undefined;
  const next: OrgAccessEntry = {
    ...change.entry,
    justification: change.entry.justification ?? current?.justification ?? null,
    requestedAt: change.entry.requestedAt ?? current?.requestedAt ?? null,
  };
  return current === undefined ? [...list, next] : list.map((e) => (e.org === org ? next : e));
}

/** @internal A row of the policies table as a record; throws `TypeError` when it is not valid. */
export function rowToPolicy(row: QueryResultRow): OrgPolicyRecord {
  const days: unknown = row.max_lifetime_days;
  const exempt: unknown = row.exempt;
  const flags = [row.require_approval, row.allow_global, row.require_allowed_ips];
  if (typeof row.org !== 'string' || row.org.length === 0 || row.org !== row.org.toLowerCase()) bad('policy org');
  if (days !== null && !(Number.isInteger(days) && (days as number) >= 1 && (days as number) <= 365)) bad('max_lifetime_days');
  if (!flags.every((f) => typeof f === 'boolean')) bad('policy flags');
  if (!Array.isArray(exempt) || exempt.length > 100 || !exempt.every((u) => typeof u === 'string')) bad('exempt');
  if (typeof row.updated_by !== 'string') bad('updated_by');
  const updatedAt = time(row.updated_at, 'updated_at');
  if (updatedAt === null) bad('updated_at');
  return Object.freeze({
    org: row.org,
    maxLifetimeDays: days as number | null,
    requireApproval: row.require_approval as boolean,
    allowGlobal: row.allow_global as boolean,
    requireAllowedIps: row.require_allowed_ips as boolean,
    exempt: Object.freeze([...exempt]),
    updatedBy: row.updated_by,
    updatedAt,
  });
}

/** @internal A policy as the values of `upsertPolicy`. */
export function policyValues(p: OrgPolicyRecord): unknown[] {
  return [p.org, p.maxLifetimeDays, p.requireApproval, p.allowGlobal, p.requireAllowedIps, [...p.exempt], p.updatedBy, p.updatedAt];
}

/** @internal An org access list given by a caller, checked; `ValidationError` when it is not valid. */
export function checkAccess(value: unknown, path: string): ReturnType<typeof readOrgAccess> {
  try {
    return readOrgAccess(value);
  } catch (err) {
    throw new ValidationError([{ path, message: err instanceof Error ? err.message : 'malformed org access' }]);
  }
}

/** @internal A policy given by a caller, checked as a row would be. */
export function checkPolicy(p: OrgPolicyRecord): OrgPolicyRecord {
  try {
    return rowToPolicy({
      org: p.org,
      max_lifetime_days: p.maxLifetimeDays,
      require_approval: p.requireApproval,
      allow_global: p.allowGlobal,
      require_allowed_ips: p.requireAllowedIps,
      exempt: p.exempt,
      updated_by: p.updatedBy,
      updated_at: p.updatedAt,
    });
  } catch (err) {
    throw new ValidationError([{ path: 'policy', message: err instanceof Error ? err.message : 'malformed policy' }]);
  }
}
