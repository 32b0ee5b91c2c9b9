/**
 * @internal The PostgreSQL side of a record's usage fields (see
 * `../usage.ts`): three columns added by their own migration step
 * (`allowed_ips text[]`, `used_from jsonb`, `expiry_warnings integer[]`, and
 * an index for the expiry sweep), their values for `insert`, their reading
 * from a row, and the two statements that change them: `recordUse` (last-used
 * time and the last few addresses, merged in SQL so that servers writing at
 * once lose nothing) and `markExpiring` (claim expiry warnings with one
 * conditional `UPDATE … RETURNING`, so that two servers sweeping at once
 * warn once).
 * @module
 */
import type { QueryResultRow } from 'pg';
import { MAX_USED_FROM, type TokenUse } from '../../types';
import type { Entry } from '../../record-codec';

/** @internal The statements of the usage fields, for one table. */
export interface UsageSql {
  /** Run by `migrate()` after the table's own statements: add what an older table lacks. */
  readonly migrate: readonly string[];
  /** $1 uses (JSON `[{id, address, user_agent}]`), $2 at (timestamptz), $3 at (ISO text). No rows. */
  readonly recordUse: string;
  /** $1 threshold (seconds), $2 now, $3 now + threshold, $4 limit. Rows: the records claimed. */
  readonly markExpiring: string;
}

/**
 * @internal Build the usage statements for a quoted table `t`; `idx` names an
 * index of it; `columns(alias)` is the column list a record is read from.
 */
export function buildUsageSql(t: string, idx: (suffix: string) => string, columns: (alias: string) => string): UsageSql {
  // Entries of used_from whose address is this use's, at or after its time.
  const sameOrNewer = `SELECT 1 FROM jsonb_array_elements(COALESCE(t.used_from, '[]'::jsonb)) AS e
        WHERE e->>'address' = u.address AND (e->>'at') COLLATE "C" >= $3::text COLLATE "C"`;
  // Newest first, equal times by address: the order the memory and file stores keep ("C": byte order).
  const order = `(x.e->>'at') COLLATE "C" DESC, (x.e->>'address') COLLATE "C"`;
  const noMarkAtOrBelow = (alias: string): string => `NOT EXISTS (SELECT 1 FROM unnest(${alias}.expiry_warnings) AS w(s) WHERE w.s <= $1)`;
  return {
    migrate: [
      // A table made by an older version gains what is missing; nothing is renamed or dropped.
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS allowed_ips text[]`,
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS used_from jsonb`,
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS expiry_warnings integer[]`,
      `CREATE INDEX IF NOT EXISTS ${idx('expiring_idx')} ON ${t} (expires_at) WHERE kind = 'pat' AND revoked_at IS NULL`,
    ],
    // One statement for a whole batch. A row two servers write at once is
    // updated by one, then the other re-evaluates its WHERE and SET on the new
    // row version (READ COMMITTED), so no address is lost; GREATEST ignores
    // NULL and never moves last_used_at back; a row with nothing to change is
    // not written at all.
    recordUse: `UPDATE ${t} AS t SET
        last_used_at = GREATEST(t.last_used_at, $2),
        used_from = CASE WHEN u.address IS NULL OR EXISTS (${sameOrNewer}) THEN t.used_from ELSE (
          SELECT jsonb_agg(k.e ORDER BY ${order.replaceAll('x.', 'k.')}) FROM (
            SELECT x.e FROM (
              SELECT e FROM jsonb_array_elements(COALESCE(t.used_from, '[]'::jsonb)) AS e WHERE e->>'address' <> u.address
              UNION ALL
              SELECT jsonb_build_object('address', u.address, 'at', $3::text, 'userAgent', u.user_agent)
            ) AS x(e)
            ORDER BY ${order}
            LIMIT ${MAX_USED_FROM}
          ) AS k(e)
        ) END
      FROM jsonb_to_recordset($1::jsonb) AS u(id text, address text, user_agent text)
      WHERE t.id = u.id
        AND (t.last_used_at IS NULL OR t.last_used_at < $2 OR (u.address IS NOT NULL AND NOT EXISTS (${sameOrNewer})))`,
    // Rows another statement holds locked are skipped (left for the next
    // sweep) rather than waited for: no sweep waits behind a revocation, and
    // none can deadlock with one. A row claimed by a concurrent sweep is seen
    // marked when it is locked (the WHERE is re-checked on the row version
    // that committed), so each threshold is claimed once.
    markExpiring: `WITH picked AS (
        SELECT id FROM ${t} AS c
        WHERE c.kind = 'pat' AND c.revoked_at IS NULL AND c.expires_at > $2 AND c.expires_at <= $3 AND ${noMarkAtOrBelow('c')}
        ORDER BY c.expires_at, c.id COLLATE "C"
        LIMIT $4
        FOR NO KEY UPDATE SKIP LOCKED
      )
      UPDATE ${t} AS u SET expiry_warnings = array_append(COALESCE(u.expiry_warnings, '{}'::integer[]), $1::integer)
      FROM picked
      WHERE u.id = picked.id AND u.revoked_at IS NULL AND ${noMarkAtOrBelow('u')}
      RETURNING ${columns('u')}`,
  };
}

/** @internal The values of the usage columns of `insert` (allowed_ips, used_from, expiry_warnings). */
export function usageValues(e: Entry): unknown[] {
  return [
    e.allowedIps === null ? null : [...e.allowedIps],
    e.usedFrom.length === 0 ? null : JSON.stringify(e.usedFrom.map((u) => ({ ...u, at: new Date(u.at).toISOString() }))),
    e.expiryWarnings.length === 0 ? null : [...e.expiryWarnings],
  ];
}

/** @internal The usage fields of a row, in the form `toEntry` reads with dates as `Date`. */
export function usageOfRow(row: QueryResultRow): Record<string, unknown> {
  const used: unknown = row.used_from;
  return {
    allowedIps: row.allowed_ips ?? null,
    usedFrom: Array.isArray(used)
      ? used.map((u: unknown) =>
          typeof u === 'object' && u !== null && typeof (u as { at?: unknown }).at === 'string'
            ? { ...u, at: new Date((u as { at: string }).at) }
            : u,
        )
      : (used ?? null),
    expiryWarnings: row.expiry_warnings ?? null,
  };
}

/** @internal The uses of one `recordUse` call as the statement's JSON (one per id: the last wins). */
export function usesJson(uses: readonly TokenUse[]): string {
  const byId = new Map<string, { id: string; address: string | null; user_agent: string | null }>();
  for (const u of uses) byId.set(u.id, { id: u.id, address: u.address, user_agent: u.userAgent });
  return JSON.stringify([...byId.values()]);
}
