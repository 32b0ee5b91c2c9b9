/**
 * Checking the organization fields of a stored record (`orgAccess`, G3) and
 * the org policies (G1) at the edge of a store: a record from a caller or a
 * file is checked entry by entry and copied, so that a hostile record (too
 * many entries, two for one org, an unknown status, a `__proto__` key, huge
 * texts) is a typed error, never a wider or odder access than was decided.
 * @module
 */
import type { IssueInput } from '../../errors';
import { isPlainObject } from '../../core/vocabulary';
import type { OrgAccessEntry, OrgAccessStatus } from './governance';

/** @internal An entry as a store keeps it: dates as epoch milliseconds (a `Date` can be changed with `setTime`). */
export interface StoredAccess {
  readonly org: string;
  readonly status: OrgAccessStatus;
  readonly justification: string | null;
  readonly requestedAt: number | null;
  readonly reason: string | null;
  readonly decidedBy: string | null;
  readonly decidedAt: number | null;
}

// One entry per org: a bound far above any real number of orgs, low enough that a record cannot bloat a store.
const MAX_ENTRIES = 1000;
const MAX_TEXT = 1024;
const MAX_ID = 512;
/** @internal S7's org names as stores keep them: lowercase. */
export const ORG = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const STATUSES: readonly string[] = ['pending', 'approved', 'denied', 'revoked'];
const KEYS: ReadonlySet<string> = new Set(['org', 'status', 'justification', 'requestedAt', 'reason', 'decidedBy', 'decidedAt']);

/**
 * @internal `orgAccess` of a raw record: `null` when absent (most records), else
 * the checked frozen entries; problems go to `issues`, paths under `path`.
 *
 * @example
 * ```ts
 * readOrgAccess(undefined, toMs, 'record.orgAccess', []); // null
 * ```
 */
export function readOrgAccess(
  value: unknown,
  toMs: (value: unknown, path: string, nullable: boolean) => number | null,
  path: string,
  issues: IssueInput[],
): readonly StoredAccess[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length > MAX_ENTRIES) {
    issues.push({ path, message: `expected an array of at most ${MAX_ENTRIES} org access entries` });
    return null;
  }
  const seen = new Set<string>();
  const out: StoredAccess[] = [];
  value.forEach((raw: unknown, i) => {
    const at = `${path}[${i}]`;
    const entry = readOne(raw, toMs, at, issues);
    if (entry === null) return;
    if (seen.has(entry.org)) issues.push({ path: `${at}.org`, message: `a second entry for org '${entry.org}'` });
    seen.add(entry.org);
    out.push(entry);
  });
  return out.length === 0 ? null : Object.freeze(out);
}

function readOne(
  raw: unknown,
  toMs: (value: unknown, path: string, nullable: boolean) => number | null,
  at: string,
  issues: IssueInput[],
): StoredAccess | null {
  if (!isPlainObject(raw)) {
    issues.push({ path: at, message: 'expected an org access entry object' });
    return null;
  }
  const before = issues.length;
  for (const key of Reflect.ownKeys(raw)) {
    if (typeof key !== 'string' || !KEYS.has(key)) issues.push({ path: at, message: `unknown key '${String(key)}'` });
  }
  const org = typeof raw.org === 'string' && ORG.test(raw.org) ? raw.org : null;
  if (org === null) issues.push({ path: `${at}.org`, message: 'expected a lowercase organization name' });
  const status = typeof raw.status === 'string' && STATUSES.includes(raw.status) ? (raw.status as OrgAccessStatus) : null;
  if (status === null) issues.push({ path: `${at}.status`, message: "expected 'pending', 'approved', 'denied' or 'revoked'" });
  const justification = text(raw.justification, `${at}.justification`, MAX_TEXT, issues);
  const reason = text(raw.reason, `${at}.reason`, MAX_TEXT, issues);
  const decidedBy = text(raw.decidedBy, `${at}.decidedBy`, MAX_ID, issues);
  const requestedAt = raw.requestedAt === null ? null : toMs(raw.requestedAt, `${at}.requestedAt`, true);
  const decidedAt = raw.decidedAt === null ? null : toMs(raw.decidedAt, `${at}.decidedAt`, true);
  if (org === null || status === null || issues.length > before) return null;
  return Object.freeze({ org, status, justification, requestedAt, reason, decidedBy, decidedAt });
}

function text(value: unknown, path: string, max: number, issues: IssueInput[]): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || value.length > max) {
    issues.push({ path, message: `expected a string of at most ${max} characters, or null` });
    return null;
  }
  return value;
}

/**
 * @internal Fresh frozen entries for a caller.
 *
 * @example
 * ```ts
 * accessEntries(stored)[0]?.requestedAt; // a new Date
 * ```
 */
export function accessEntries(stored: readonly StoredAccess[]): readonly OrgAccessEntry[] {
  return Object.freeze(
    stored.map((s) =>
      Object.freeze({
        ...s,
        requestedAt: s.requestedAt === null ? null : new Date(s.requestedAt),
        decidedAt: s.decidedAt === null ? null : new Date(s.decidedAt),
      }),
    ),
  );
}

/**
 * @internal The JSON form, dates as ISO strings.
 *
 * @example
 * ```ts
 * JSON.stringify(accessJson(stored));
 * ```
 */
export function accessJson(stored: readonly StoredAccess[]): unknown[] {
  return stored.map((s) => ({
    ...s,
    requestedAt: s.requestedAt === null ? null : new Date(s.requestedAt).toISOString(),
    decidedAt: s.decidedAt === null ? null : new Date(s.decidedAt).toISOString(),
  }));
}
