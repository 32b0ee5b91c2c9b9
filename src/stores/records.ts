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
import type { Scope } from '../scopes/types';
import { isPermission, type Permission } from '../vocabulary';
import type { RecordKind, TokenRecord } from './types';

/**
 * @internal A stored record. Only `revokedAt` ever changes.
 *
 * @example
 * ```ts
 * const e: Entry = toEntry(record, 'date');
 * ```
 */
export interface Entry {
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
  const kind = raw.kind === 'pat' || raw.kind === 'component' ? raw.kind : null;
  if (kind === null) issues.push({ path: at('kind'), message: "expected 'pat' or 'component'" });
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
  if (kind === null || createdAt === null || expiresAt === null || scopes === undefined) return null;
  return {
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
  };
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

/** `undefined` signals a shape error (already reported); `null` is "full access". */
function readScopes(value: unknown, path: string, issues: IssueInput[]): readonly Scope[] | null | undefined {
  if (value === null) return null;
  if (!Array.isArray(value)) {
    issues.push({ path, message: 'expected an array of scopes or null' });
    return undefined;
  }
  const out: Scope[] = [];
  const before = issues.length;
  value.forEach((item: unknown, i) => {
    const scope = readScope(item, `${path}[${i}]`, issues);
    if (scope) out.push(scope);
  });
  return issues.length > before ? undefined : Object.freeze(out);
}

function readScope(item: unknown, path: string, issues: IssueInput[]): Scope | null {
  if (!isPlainObject(item)) {
    issues.push({ path, message: 'expected a scope object' });
    return null;
  }
  const { resource, permissions, allowedMatches } = item;
  let ok = true;
  // An unknown key (a misspelled "allowedmatches") would otherwise load as an entry without its
  // restriction, wider than what was issued: a tampered or corrupt row fails closed.
  for (const key of Object.keys(item)) {
    if (key !== 'resource' && key !== 'permissions' && key !== 'allowedMatches') {
      issues.push({ path: `${path}[${JSON.stringify(key.slice(0, 40))}]`, message: 'unknown key in a stored scope' });
      ok = false;
    }
  }
  if (resource !== undefined && typeof resource !== 'string') {
    issues.push({ path: `${path}.resource`, message: 'expected a string or no resource' });
    ok = false;
  }
  if (!Array.isArray(permissions) || !permissions.every((p: unknown) => isPermission(p))) {
    issues.push({ path: `${path}.permissions`, message: 'expected an array of permissions' });
    ok = false;
  }
  if (allowedMatches !== undefined && !(Array.isArray(allowedMatches) && allowedMatches.every((m: unknown) => typeof m === 'string'))) {
    issues.push({ path: `${path}.allowedMatches`, message: 'expected an array of strings' });
    ok = false;
  }
  if (!ok) return null;
  const scope: { resource?: string; permissions: readonly Permission[]; allowedMatches?: readonly string[] } = {
    permissions: Object.freeze([...(permissions as Permission[])]),
  };
  if (typeof resource === 'string') scope.resource = resource;
  if (Array.isArray(allowedMatches)) scope.allowedMatches = Object.freeze([...(allowedMatches as string[])]);
  return Object.freeze(scope);
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

/**
 * @internal An object literal or a null-prototype object (not an array, Date, class instance).
 *
 * @example
 * ```ts
 * isPlainObject({}); // true
 * isPlainObject([]); // false
 * ```
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
