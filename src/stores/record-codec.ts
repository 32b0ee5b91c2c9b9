/**
 * Checking and copying token records at the edge of a store. A record handed to
 * `insert` comes from a caller, and a record read from a file comes from outside
 * the process: both are checked field by field and copied, so that nothing a
 * caller holds can change what the store keeps, and a bad shape is a typed error
 * rather than a TypeError deep inside.
 *
 * Inside a store a record is an {@link Entry}: dates as epoch milliseconds (a
 * frozen `Date` can still be changed with `setTime`, a number cannot) and scopes
 * deep-frozen, so entries can be shared and a fresh frozen view made per read.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import { checkNormalizedScopes, type Scope } from '../core/scopes';
import { isPlainObject } from '../core/vocabulary';
import type { RecordKind, TokenRecord } from './types';
import { readUsage, usageFields, usageJson, type Usage } from './usage';
import { accessEntries, accessJson, readOrgAccess, type StoredAccess } from './orgs';

/**
 * @internal A stored record. Only `revokedAt`, `lastUsedAt`, `usedFrom` and
 * `expiryWarnings` ever change (see usage.ts for the last three fields').
 *
 * @example
 * ```ts
 * const e: Entry = toEntry(record, 'date');
 * ```
 */
export interface Entry extends Usage {
  readonly id: string;
  readonly kind: RecordKind;
  readonly ownerId: string;
  readonly name: string;
  readonly description: string | null;
  readonly scopes: readonly Scope[] | null;
  readonly parentId: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  revokedAt: number | null;
  readonly committerIdentity: string | null;
  lastUsedAt: number | null;
  /** `null` for a record without org access entries (most records). */
  orgAccess: readonly StoredAccess[] | null;
  /** The thumbprint of the key the token is bound to; `null` for most records. */
  readonly boundKey: string | null;
}

/**
 * @internal How dates arrive: `Date` objects from callers, ISO strings from a JSON file.
 *
 * @example
 * ```ts
 * toEntry(JSON.parse(text), 'iso');
 * ```
 */
export type DateForm = 'date' | 'iso';

// Room for any sane id or user id, small enough that a hostile value cannot bloat a store.
const MAX_ID_LENGTH = 512;
const MAX_TEXT_LENGTH = 16 * 1024;
// An RFC 7638 SHA-256 thumbprint in base64url: 32 bytes, 43 characters, no padding.
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/**
 * @internal Check `raw` as a {@link TokenRecord} and copy it into an {@link Entry}.
 * Throws {@link ValidationError} listing every problem, paths prefixed with `path`.
 *
 * @example
 * ```ts
 * toEntry({ id: '' }, 'date', 'record'); // throws; issues include record.id
 * ```
 */
export function toEntry(raw: unknown, form: DateForm, path = ''): Entry {
  const issues: IssueInput[] = [];
  const entry = readEntry(raw, form, path, issues);
  if (entry === null || issues.length > 0) throw new ValidationError(issues);
  return entry;
}

function readEntry(raw: unknown, form: DateForm, path: string, issues: IssueInput[]): Entry | null {
  if (!isPlainObject(raw)) {
    issues.push({ path, message: 'expected a token record object' });
    return null;
  }
  const at = (key: string): string => (path ? `${path}.${key}` : key);
  const id = idField(raw.id, at('id'), issues);
  const kind = raw.kind === 'pat' || raw.kind === 'component' || raw.kind === 'session' ? raw.kind : null;
  if (kind === null) issues.push({ path: at('kind'), message: "expected 'pat', 'component' or 'session'" });
  const ownerId = idField(raw.ownerId, at('ownerId'), issues);
  const name = textField(raw.name, at('name'), false, issues) ?? '';
  if (name === '') issues.push({ path: at('name'), message: 'expected a non-empty name' });
  const description = textField(raw.description, at('description'), true, issues);
  const committerIdentity = textField(raw.committerIdentity, at('committerIdentity'), true, issues);
  const parentId = raw.parentId === null ? null : idField(raw.parentId, at('parentId'), issues);
  const scopes = readScopes(raw.scopes, at('scopes'), issues);
  const createdAt = dateField(raw.createdAt, form, at('createdAt'), false, issues);
  const expiresAt = dateField(raw.expiresAt, form, at('expiresAt'), false, issues);
  const revokedAt = dateField(raw.revokedAt, form, at('revokedAt'), true, issues);
  // Absent in records written before last-used times existed.
  const lastUsedAt = raw.lastUsedAt === undefined ? null : dateField(raw.lastUsedAt, form, at('lastUsedAt'), true, issues);
  // Absent in records written before addresses and expiry warnings existed.
  const usage = readUsage(raw, at, (value, p) => dateField(value, form, p, false, issues), issues);
  const orgAccess = readOrgAccess(raw.orgAccess, (v, p, n) => dateField(v, form, p, n, issues), at('orgAccess'), issues);
  // Absent in records written before key binding existed.
  const boundKey = raw.boundKey === undefined || raw.boundKey === null ? null : thumbprintField(raw.boundKey, at('boundKey'), issues);
  if (kind === null || createdAt === null || expiresAt === null || scopes === undefined) return null;
  return {
    ...usage,
    id,
    kind,
    ownerId,
    name,
    description: description ?? null,
    scopes,
    parentId,
    createdAt,
    expiresAt,
    revokedAt,
    committerIdentity: committerIdentity ?? null,
    lastUsedAt,
    orgAccess,
    boundKey,
  };
}

function thumbprintField(value: unknown, path: string, issues: IssueInput[]): string | null {
  if (typeof value === 'string' && THUMBPRINT.test(value)) return value;
  issues.push({ path, message: 'expected a key thumbprint (43 base64url characters) or null' });
  return null;
}

function idField(value: unknown, path: string, issues: IssueInput[]): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    issues.push({ path, message: `expected a string of 1 to ${MAX_ID_LENGTH} characters` });
    return '';
  }
  return value;
}

function textField(value: unknown, path: string, nullable: boolean, issues: IssueInput[]): string | null {
  if (value === null && nullable) return null;
  if (typeof value !== 'string' || value.length > MAX_TEXT_LENGTH) {
    issues.push({ path, message: nullable ? 'expected a string or null' : 'expected a string' });
    return null;
  }
  return value;
}

function dateField(value: unknown, form: DateForm, path: string, nullable: boolean, issues: IssueInput[]): number | null {
  if (value === null && nullable) return null;
  let ms = Number.NaN;
  if (form === 'date' && value instanceof Date) ms = value.getTime();
  else if (form === 'iso' && typeof value === 'string' && ISO_DATE.test(value)) ms = Date.parse(value);
  if (!Number.isFinite(ms)) {
    const what = form === 'date' ? 'a valid Date' : 'an ISO 8601 UTC date string';
    issues.push({ path, message: nullable ? `expected ${what} or null` : `expected ${what}` });
    return null;
  }
  return ms;
}

/**
 * `undefined` signals a shape error (already reported); `null` is "full access". Stored scopes go
 * through the one scope validator (`normalizeScopes`' strict mode): a tampered or corrupt row (an
 * unknown key such as a misspelled `allowedmatches`, a `role:` item, a bad pattern) fails closed
 * instead of loading wider or narrower than what was issued.
 */
function readScopes(value: unknown, path: string, issues: IssueInput[]): readonly Scope[] | null | undefined {
  if (value === null) return null;
  try {
    return Object.freeze(checkNormalizedScopes(value));
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // `path` is text such as `record.scopes`; the joined text is split into segments again.
    for (const i of err.issues) {
      const sep = path === '' || i.pathText === '' || i.pathText.startsWith('[') ? '' : '.';
      issues.push({ code: i.code, path: path + sep + i.pathText, message: i.message });
    }
    return undefined;
  }
}

/**
 * @internal A fresh frozen {@link TokenRecord} for a caller: its dates are its own.
 *
 * @example
 * ```ts
 * toRecord(entry).expiresAt; // a new Date each call
 * ```
 */
export function toRecord(e: Entry): TokenRecord {
  return Object.freeze({
    id: e.id,
    kind: e.kind,
    ownerId: e.ownerId,
    name: e.name,
    description: e.description,
    scopes: e.scopes,
    parentId: e.parentId,
    createdAt: new Date(e.createdAt),
    expiresAt: new Date(e.expiresAt),
    revokedAt: e.revokedAt === null ? null : new Date(e.revokedAt),
    committerIdentity: e.committerIdentity,
    lastUsedAt: e.lastUsedAt === null ? null : new Date(e.lastUsedAt),
    ...usageFields(e),
    ...(e.orgAccess === null ? {} : { orgAccess: accessEntries(e.orgAccess) }),
    ...(e.boundKey === null ? {} : { boundKey: e.boundKey }),
  });
}

/**
 * @internal The JSON form of an entry, dates as ISO strings.
 *
 * @example
 * ```ts
 * JSON.stringify(toJson(entry));
 * ```
 */
export function toJson(e: Entry): Record<string, unknown> {
  return {
    id: e.id,
    kind: e.kind,
    ownerId: e.ownerId,
    name: e.name,
    description: e.description,
    scopes: e.scopes,
    parentId: e.parentId,
    createdAt: new Date(e.createdAt).toISOString(),
    expiresAt: new Date(e.expiresAt).toISOString(),
    revokedAt: e.revokedAt === null ? null : new Date(e.revokedAt).toISOString(),
    committerIdentity: e.committerIdentity,
    lastUsedAt: e.lastUsedAt === null ? null : new Date(e.lastUsedAt).toISOString(),
    ...usageJson(e),
    ...(e.orgAccess === null ? {} : { orgAccess: accessJson(e.orgAccess) }),
    ...(e.boundKey === null ? {} : { boundKey: e.boundKey }),
  };
}

/**
 * @internal A valid `Date` as epoch milliseconds, else a {@link ValidationError} naming `what`.
 *
 * @example
 * ```ts
 * timeOf(new Date(0), 'now'); // 0
 * ```
 */
export function timeOf(value: unknown, what: string): number {
  const ms = value instanceof Date ? value.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) throw new ValidationError([{ path: what, message: 'expected a valid Date' }]);
  return ms;
}
