/**
 * Table and index names of the PostgreSQL stores: a `table` option checked and
 * quoted once, index and sibling names PostgreSQL will not truncate, and the
 * keys of the advisory locks derived from them.
 * @module
 */
import { ValidationError } from '../../../../errors';

/** Each part of a table name: what an unquoted PostgreSQL identifier may be, lower case, at most 63 bytes. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** PostgreSQL's identifier limit (NAMEDATALEN - 1): longer names are silently truncated. */
const MAX_IDENTIFIER = 63;

/** @internal A table name split into its parts. */
export interface TableName {
  readonly schema: string | null;
  readonly table: string;
  /** `"schema"."table"` or `"table"`. */
  readonly quoted: string;
  /** `schema.table` or `table`: the key advisory locks are derived from. */
  readonly plain: string;
}

/**
 * @internal Check a `table` option: `name` or `schema.name`, each part matching
 * `^[a-z_][a-z0-9_]{0,62}$`. Throws {@link ValidationError} otherwise.
 */
export function parseTableName(value: unknown): TableName {
  if (typeof value !== 'string') {
    throw new ValidationError([{ path: 'table', message: 'expected a string such as "svc_auth_tokens" or "auth.tokens"' }]);
  }
  const parts = value.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    throw new ValidationError([{ path: 'table', message: 'expected name or schema.name, each matching ^[a-z_][a-z0-9_]{0,62}$' }]);
  }
  const table = parts[parts.length - 1] as string;
  const schema = parts.length === 2 ? (parts[0] as string) : null;
  const quoted = schema === null ? quote(table) : `${quote(schema)}.${quote(table)}`;
  return { schema, table, quoted, plain: value };
}

/** @internal An identifier in double quotes. */
export function quote(identifier: string): string {
  // The pattern already excludes quotes; doubling them keeps this safe on its own.
  return `"${identifier.replaceAll('"', '""')}"`;
}

/**
 * @internal An index name derived from the table name that PostgreSQL will not truncate:
 * two long names truncated alike would make `CREATE INDEX IF NOT EXISTS` skip
 * the second index silently.
 */
export function indexName(table: string, suffix: string): string {
  const plain = `${table}_${suffix}`;
  if (plain.length <= MAX_IDENTIFIER) return plain;
  const hash = fnv1a(table);
  return `${table.slice(0, MAX_IDENTIFIER - suffix.length - hash.length - 2)}_${hash}_${suffix}`;
}

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** @internal The advisory-lock key of `migrate()` for a table. */
export function migrateLockKey(name: TableName): string {
  return JSON.stringify(['svc-auth', 'migrate', name.plain]);
}

/** @internal The advisory-lock key that serialises inserts of one (owner, name). */
export function nameLockKey(name: TableName, ownerId: string, tokenName: string): string {
  // JSON keeps the parts apart: no owner/name pair can forge another pair's key.
  return JSON.stringify(['svc-auth', 'name', name.plain, ownerId, tokenName]);
}
