/**
 * Rows of the token table as records: a row that is not a valid record fails
 * closed, so nothing is ever decided on it. And a record as the values of the
 * store's insert.
 * @module
 */
import type { QueryResultRow } from 'pg';
import { UnavailableError } from '../../../errors';
import { toEntry, toRecord, type Entry } from '../../record-codec';
import type { TokenRecord } from '../../types';
import { usageOfRow, usageValues } from './usage';
import type { OrgAccessEntry } from '../../orgs';
import { orgAccessJson, readOrgAccess } from './side-tables';

/**
 * @internal A fresh frozen record of an entry. The entry carries the row's org
 * access (the codec keeps it), so it travels through the chain reads and what
 * the store remembers (known.ts) with the rest of the row.
 */
export function recordOf(e: Entry): TokenRecord {
  return toRecord(e);
}

/** @internal the first row of a result, if any. */
export function first(result: { rows: QueryResultRow[] }): QueryResultRow | undefined {
  return result.rows[0];
}

/** A row as a record. A row that is not a valid record fails closed: nothing is decided on it. */
export function rowToRecord(row: QueryResultRow): TokenRecord {
  return recordOf(rowToEntry(row));
}

/** @internal A row as a checked entry; `UnavailableError` when it is not a valid record. */
export function rowToEntry(row: QueryResultRow): Entry {
  try {
    const orgAccess = readOrgAccess(row.org_access);
    const entry = toEntry(
      {
        id: row.id,
        kind: row.kind,
        ownerId: row.owner_id,
        name: row.name,
        description: row.description,
        scopes: row.scopes,
        parentId: row.parent_id,
        createdAt: asDate(row.created_at),
        expiresAt: asDate(row.expires_at),
        revokedAt: row.revoked_at === null ? null : asDate(row.revoked_at),
        committerIdentity: row.committer_identity,
        lastUsedAt: row.last_used_at === null || row.last_used_at === undefined ? null : asDate(row.last_used_at),
        ...usageOfRow(row),
        ...(orgAccess === undefined ? {} : { orgAccess }),
        boundKey: row.bound_key ?? null,
      },
      'date',
    );
    return entry;
  } catch (err) {
    throw new UnavailableError('token store unavailable: a stored record is malformed', { cause: err });
  }
}

/** Pools with custom type parsers may hand timestamps back as text. */
function asDate(value: unknown): unknown {
  return typeof value === 'string' ? new Date(value) : value;
}

/** @internal Rows per requested id (`root`), in the order the statement returned them (nearest first). */
export function groupByRoot(rows: readonly QueryResultRow[]): Map<string, QueryResultRow[]> {
  const out = new Map<string, QueryResultRow[]>();
  for (const row of rows) {
    const root = String(row.root);
    const list = out.get(root);
    if (list === undefined) out.set(root, [row]);
    else list.push(row);
  }
  return out;
}

/**
 * @internal The parameters of the store's insert for a checked entry, stored at `nowMs`.
 *
 * @example
 * ```ts
 * await client.query({ text: sql.insert, values: insertValues(entry, Date.now()) });
 * ```
 */
export function insertValues(entry: Entry, nowMs: number, orgAccess?: readonly OrgAccessEntry[]): unknown[] {
  return [
    entry.id,
    entry.kind,
    entry.ownerId,
    entry.name,
    entry.description,
    entry.scopes === null ? null : JSON.stringify(entry.scopes),
    entry.parentId,
    new Date(entry.createdAt),
    new Date(entry.expiresAt),
    entry.revokedAt === null ? null : new Date(entry.revokedAt),
    entry.committerIdentity,
    new Date(nowMs),
    entry.kind === 'pat',
    ...usageValues(entry),
    orgAccessJson(orgAccess),
    entry.boundKey,
  ];
}
