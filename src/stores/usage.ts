/**
 * The parts of a record that say how a token is used and may be used: the
 * address ranges it is limited to (`allowedIps`), the last few addresses it
 * was used from (`usedFrom`), and the expiry warnings already given
 * (`expiryWarnings`). Their checks at the edge of a store, their JSON form,
 * and the two changes the stores make to them (`recordUse`, `markExpiring`),
 * written once so that the memory and file stores agree with each other and
 * with the SQL of the PostgreSQL store (which the conformance suite compares).
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import { canonicalAddress, checkRanges } from '../core/network';
import { isPlainObject } from '../core/vocabulary';
import { MAX_USED_FROM, type TokenRecord, type TokenUse, type UsedFrom } from './types';

/** @internal Most address ranges one token may be limited to. */
export const MAX_ALLOWED_IPS = 64;
/** @internal Longest user agent kept, in characters. */
export const MAX_USER_AGENT = 256;
/** @internal The longest warning threshold: a PAT's longest lifetime (365 days), in seconds. */
export const MAX_WARNING_SEC = 365 * 86_400;
/** Most warning marks one record may carry as read back (a sweep adds one per threshold). */
const MAX_WARNINGS = 32;
/** Most `usedFrom` entries read back (more than the stores write, so a later release may keep more). */
const MAX_USED_FROM_READ = 16;
/** Most expiry warnings one `markExpiring` call claims. */
export const MAX_MARK_LIMIT = 10_000;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** @internal A `usedFrom` entry inside a store: its time as epoch milliseconds. */
export interface UsedEntry {
  readonly address: string;
  readonly at: number;
  readonly userAgent: string | null;
}

/** @internal The usage fields of an entry. */
export interface Usage {
  readonly allowedIps: readonly string[] | null;
  usedFrom: readonly UsedEntry[];
  expiryWarnings: readonly number[];
}

/**
 * @internal Is `value` a user agent as stores keep it: at most
 * {@link MAX_USER_AGENT} characters, no control characters, no lone surrogate?
 *
 * @example
 * ```ts
 * isStoredUserAgent('curl/8.5.0'); // true
 * ```
 */
export function isStoredUserAgent(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_USER_AGENT && !CONTROL.test(value) && !LONE_SURROGATE.test(value);
}

type DateReader = (value: unknown, path: string) => number | null;

/**
 * @internal Read the usage fields of a raw record (absent fields are empty),
 * reporting problems into `issues` with paths made by `at`.
 *
 * @example
 * ```ts
 * const usage = readUsage(raw, (k) => `record.${k}`, readDate, issues);
 * ```
 */
export function readUsage(raw: Record<string, unknown>, at: (key: string) => string, date: DateReader, issues: IssueInput[]): Usage {
  return {
    allowedIps: readAllowedIps(raw.allowedIps, at('allowedIps'), issues),
    usedFrom: readUsedFrom(raw.usedFrom, at('usedFrom'), date, issues),
    expiryWarnings: readWarnings(raw.expiryWarnings, at('expiryWarnings'), issues),
  };
}

function readAllowedIps(value: unknown, path: string, issues: IssueInput[]): readonly string[] | null {
  if (value === undefined || value === null) return null;
  try {
    const list = checkRanges(value, { path, max: MAX_ALLOWED_IPS, allowEmpty: false });
    // Stored lists are canonical: another spelling was written by hand, or by something else.
    if (list.some((r, i) => r !== (value as unknown[])[i])) issues.push({ path, message: 'expected canonical CIDR text' });
    return Object.freeze(list);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues.map((i) => ({ code: i.code, path: i.path as (string | number)[], message: i.message })));
    return null;
  }
}

function readUsedFrom(value: unknown, path: string, date: DateReader, issues: IssueInput[]): readonly UsedEntry[] {
  if (value === undefined || value === null) return EMPTY_USED;
  if (!Array.isArray(value) || value.length > MAX_USED_FROM_READ) {
    issues.push({ path, message: `expected an array of at most ${MAX_USED_FROM_READ} { address, at, userAgent }` });
    return EMPTY_USED;
  }
  const out: UsedEntry[] = [];
  value.forEach((item: unknown, i) => {
    const p = `${path}[${i}]`;
    if (!isPlainObject(item)) {
      issues.push({ path: p, message: 'expected { address, at, userAgent }' });
      return;
    }
    const address = canonicalAddress(item.address) === item.address ? (item.address as string) : undefined;
    if (address === undefined) issues.push({ path: `${p}.address`, message: 'expected a canonical IP address' });
    const ua = item.userAgent === null || isStoredUserAgent(item.userAgent) ? item.userAgent : undefined;
    if (ua === undefined) issues.push({ path: `${p}.userAgent`, message: `expected null or text of at most ${MAX_USER_AGENT} characters` });
    const when = date(item.at, `${p}.at`);
    if (address !== undefined && ua !== undefined && when !== null) out.push(Object.freeze({ address, at: when, userAgent: ua }));
  });
  return Object.freeze(out);
}

function readWarnings(value: unknown, path: string, issues: IssueInput[]): readonly number[] {
  if (value === undefined || value === null) return EMPTY_WARNINGS;
  const ok =
    Array.isArray(value) &&
    value.length <= MAX_WARNINGS &&
    value.every((v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_WARNING_SEC) &&
    new Set(value).size === value.length;
  if (!ok) {
    issues.push({ path, message: `expected at most ${MAX_WARNINGS} distinct whole seconds from 1 to ${MAX_WARNING_SEC}` });
    return EMPTY_WARNINGS;
  }
  return Object.freeze([...(value as number[])]);
}

const EMPTY_USED: readonly UsedEntry[] = Object.freeze([]);
const EMPTY_WARNINGS: readonly number[] = Object.freeze([]);

/**
 * @internal The usage fields a record shows: each only when it holds something.
 *
 * @example
 * ```ts
 * Object.assign(record, usageFields(entry));
 * ```
 */
export function usageFields(u: Usage): {
  allowedIps?: readonly string[];
  usedFrom?: readonly UsedFrom[];
  expiryWarnings?: readonly number[];
} {
  const out: { allowedIps?: readonly string[]; usedFrom?: readonly UsedFrom[]; expiryWarnings?: readonly number[] } = {};
  if (u.allowedIps !== null) out.allowedIps = u.allowedIps;
  if (u.usedFrom.length > 0) {
    out.usedFrom = Object.freeze(u.usedFrom.map((e) => Object.freeze({ address: e.address, at: new Date(e.at), userAgent: e.userAgent })));
  }
  if (u.expiryWarnings.length > 0) out.expiryWarnings = u.expiryWarnings;
  return out;
}

/**
 * @internal The usage fields as JSON (dates as ISO strings): each only when it holds something.
 *
 * @example
 * ```ts
 * JSON.stringify({ ...fields, ...usageJson(entry) });
 * ```
 */
export function usageJson(u: Usage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u.allowedIps !== null) out.allowedIps = u.allowedIps;
  if (u.usedFrom.length > 0) {
    out.usedFrom = u.usedFrom.map((e) => ({ address: e.address, at: new Date(e.at).toISOString(), userAgent: e.userAgent }));
  }
  if (u.expiryWarnings.length > 0) out.expiryWarnings = u.expiryWarnings;
  return out;
}

/**
 * @internal Check the uses handed to `recordUse` (a `ValidationError` names every problem).
 *
 * @example
 * ```ts
 * checkUses([{ id: 'tok-1', address: '203.0.113.7', userAgent: null }]);
 * ```
 */
export function checkUses(uses: unknown): readonly TokenUse[] {
  if (!Array.isArray(uses)) throw new ValidationError([{ path: 'uses', message: 'expected an array of { id, address, userAgent }' }]);
  const issues: IssueInput[] = [];
  uses.forEach((u: unknown, i) => {
    const p = `uses[${i}]`;
    if (!isPlainObject(u) || typeof u.id !== 'string' || u.id.length === 0 || u.id.length > 512) {
      issues.push({ path: p, message: 'expected { id, address, userAgent } with an id of 1 to 512 characters' });
      return;
    }
    if (u.address !== null && canonicalAddress(u.address) !== u.address)
      issues.push({ path: `${p}.address`, message: 'expected null or a canonical IP address' });
    if (u.userAgent !== null && !isStoredUserAgent(u.userAgent))
      issues.push({ path: `${p}.userAgent`, message: 'expected null or a cleaned user agent' });
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return uses as readonly TokenUse[];
}

/**
 * @internal Check the arguments of `markExpiring`; returns them as numbers.
 *
 * @example
 * ```ts
 * const { withinSec, nowMs, limit } = checkMark(604800, new Date(), 100);
 * ```
 */
export function checkMark(withinSec: unknown, now: unknown, limit: unknown): { withinSec: number; nowMs: number; limit: number } {
  const issues: IssueInput[] = [];
  if (!Number.isInteger(withinSec) || (withinSec as number) < 1 || (withinSec as number) > MAX_WARNING_SEC) {
    issues.push({ path: 'withinSec', message: `expected whole seconds from 1 to ${MAX_WARNING_SEC}` });
  }
  const nowMs = now instanceof Date ? now.getTime() : Number.NaN;
  if (!Number.isFinite(nowMs)) issues.push({ path: 'now', message: 'expected a valid Date' });
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_MARK_LIMIT) {
    issues.push({ path: 'limit', message: `expected a whole number from 1 to ${MAX_MARK_LIMIT}` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { withinSec: withinSec as number, nowMs, limit: limit as number };
}

/**
 * @internal Apply one use to `u` (see `TokenStore.recordUse`); whether `usedFrom` changed.
 *
 * @example
 * ```ts
 * if (mergeUsedFrom(entry, '203.0.113.7', 'curl/8', at)) changed++;
 * ```
 */
export function mergeUsedFrom(u: Usage, address: string, userAgent: string | null, atMs: number): boolean {
  const same = u.usedFrom.find((e) => e.address === address);
  if (same !== undefined && same.at >= atMs) return false;
  const next = [...u.usedFrom.filter((e) => e.address !== address), Object.freeze({ address, at: atMs, userAgent })];
  // Newest first; equal times by address (code-unit order: ASCII, as PostgreSQL's "C" collation).
  next.sort((a, b) => b.at - a.at || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  u.usedFrom = Object.freeze(next.slice(0, MAX_USED_FROM));
  return true;
}

/**
 * @internal Is an entry due for the expiry warning of `withinSec` at `nowMs` (see `TokenStore.markExpiring`)?
 *
 * @example
 * ```ts
 * if (dueForWarning(entry, 604800, Date.now())) claim(entry);
 * ```
 */
export function dueForWarning(
  e: Usage & { readonly kind: string; readonly revokedAt: number | null; readonly expiresAt: number },
  withinSec: number,
  nowMs: number,
): boolean {
  return (
    e.kind === 'pat' &&
    e.revokedAt === null &&
    e.expiresAt > nowMs &&
    e.expiresAt <= nowMs + withinSec * 1000 &&
    !e.expiryWarnings.some((w) => w <= withinSec)
  );
}

/**
 * @internal The order `markExpiring` answers in: soonest expiry first, equal expiries by id (code units).
 *
 * @example
 * ```ts
 * records.sort(soonestFirst);
 * ```
 */
export function soonestFirst(a: Pick<TokenRecord, 'id' | 'expiresAt'>, b: Pick<TokenRecord, 'id' | 'expiresAt'>): number {
  return a.expiresAt.getTime() - b.expiresAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
