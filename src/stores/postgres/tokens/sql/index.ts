/**
 * The SQL of {@link PostgresTokenStore}, built once per store from a checked
 * table name. Identifiers are validated and quoted here; every value travels as
 * a bind parameter, never as text in a statement.
 * @module
 */
import { createHash } from 'node:crypto';
import { buildUsageSql, type UsageSql } from '../usage';
import { buildPurgeSql, type PurgeSql } from '../purge';
import { buildAccountsSql, buildOrgSql, buildProofsSql, type AccountsSql, type OrgSql, type ProofsSql } from '../side-tables';
import { indexName, quote, type TableName } from './names';
import { COLUMNS, buildReads, prefixed, type ChainReads } from './reads';

export { migrateLockKey, nameLockKey, parseTableName, type TableName } from './names';
export { COLUMNS, MAX_CHAIN_DEPTH } from './reads';

/** @internal Every statement the store runs, for one table (the chain reads: reads.ts). */
export interface StoreSql extends ChainReads {
  /** Parameters: timeout (ms, text), lock key (text). Sets the transaction's statement timeout and takes the advisory lock. */
  readonly beginLocked: string;
  /** Parameters: timeout (ms, text). Sets the transaction's statement timeout only. */
  readonly beginPlain: string;
  /** Statements of `migrate()`, in order, after `beginLocked`: the table's own, then the usage fields', then the purge's. No parameters. */
  readonly migrate: readonly string[];
  /**
   * Parameters: $1 id, $2 kind, $3 owner, $4 name, $5 description, $6 scopes (json text),
   * $7 parent id, $8 created, $9 expires, $10 revoked, $11 committer, $12 now, $13 check name (bool),
   * $14 allowed ips (text[]), $15 used from (json text), $16 expiry warnings (integer[]), $17 org access (json text).
   * One row: parent_ok, name_ok, inserted.
   */
  readonly insert: string;
  /** Parameter: $1 owner. Rows in creation order. */
  readonly listByOwner: string;
  /** Parameters: $1 ids (text[]), $2 at. Rows: ids newly revoked. */
  readonly revoke: string;
  /** Parameters: $1 ids (text[]), $2 at. Moves `last_used_at` forward only; no rows. */
  readonly touch: string;
  /** A short hash of the table name, to name prepared statements per table. */
  readonly tag: string;
  /** The statements of the usage fields (addresses, expiry warnings). */
  readonly usage: UsageSql;
  /** The statements of the session purge. */
  readonly purge: PurgeSql;
  /** The DPoP replay cache's statements (its own table). */
  readonly proofs: ProofsSql;
  /** The statements of org governance. */
  readonly org: OrgSql;
  /** The statements of the service accounts. */
  readonly accounts: AccountsSql;
}

/** @internal Build the statements for one checked table name. */
export function buildSql(name: TableName): StoreSql {
  const t = name.quoted;
  const idx = (suffix: string): string => quote(indexName(name.table, suffix));
  const usage = buildUsageSql(t, idx, prefixed);
  const purge = buildPurgeSql(t, idx);
  const proofTable = indexName(name.table, 'dpop_proofs');
  const proofs = buildProofsSql(
    name.schema === null ? quote(proofTable) : `${quote(name.schema)}.${quote(proofTable)}`,
    quote(indexName(name.table, 'dpop_proofs_exp_idx')),
  );
  const sibling = (suffix: string): string =>
    name.schema === null ? quote(indexName(name.table, suffix)) : `${quote(name.schema)}.${quote(indexName(name.table, suffix))}`;
  const org = buildOrgSql(t, sibling, COLUMNS);
  const gov = `${org.version} AS gov_version`;
  const accounts = buildAccountsSql(sibling);
  return {
    beginLocked: `SELECT set_config('statement_timeout', $1, true), pg_advisory_xact_lock(hashtextextended($2, 0))`,
    beginPlain: `SELECT set_config('statement_timeout', $1, true)`,
    migrate: [
      `CREATE TABLE IF NOT EXISTS ${t} (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id text NOT NULL PRIMARY KEY,
        kind text NOT NULL,
        owner_id text NOT NULL,
        name text NOT NULL,
        description text,
        scopes jsonb,
        parent_id text,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        committer_identity text,
        last_used_at timestamptz
      )`,
      // A table made by an older version gains what is missing; nothing is renamed or dropped.
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS last_used_at timestamptz`,
      `CREATE INDEX IF NOT EXISTS ${idx('owner_idx')} ON ${t} (owner_id, seq)`,
      `CREATE INDEX IF NOT EXISTS ${idx('parent_idx')} ON ${t} (parent_id) WHERE parent_id IS NOT NULL`,
      `CREATE INDEX IF NOT EXISTS ${idx('owner_name_idx')} ON ${t} (owner_id, name) WHERE kind = 'pat' AND revoked_at IS NULL`,
      ...usage.migrate,
      // Key-bound tokens: null for every row written before them, as for a token bound to no key.
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS bound_key text`,
      ...purge.migrate,
      ...proofs.migrate,
      ...org.migrate,
      ...accounts.migrate,
    ],
    // Runs after the (owner, name) advisory lock was taken by an earlier statement,
    // so its snapshot sees every competing insert that committed. FOR SHARE on the
    // parent conflicts with revoke's row lock: one of the two waits for the other.
    insert: `WITH parent AS (
        SELECT id FROM ${t}
        WHERE id = $7 AND revoked_at IS NULL AND expires_at > $12
        FOR SHARE
      ), clash AS (
        SELECT 1 FROM ${t}
        WHERE $13 AND owner_id = $3 AND name = $4 AND kind = 'pat' AND revoked_at IS NULL AND expires_at > $12
        LIMIT 1
      ), verdict AS (
        SELECT ($7::text IS NULL OR EXISTS (SELECT 1 FROM parent)) AS parent_ok,
               NOT EXISTS (SELECT 1 FROM clash) AS name_ok
      ), ins AS (
        INSERT INTO ${t} (id, kind, owner_id, name, description, scopes, parent_id, created_at, expires_at, revoked_at, committer_identity,
          allowed_ips, used_from, expiry_warnings, org_access, bound_key)
        SELECT $1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $14::text[], $15::jsonb, $16::integer[], $17::jsonb, $18 FROM verdict
        WHERE verdict.parent_ok AND verdict.name_ok
        ON CONFLICT (id) DO NOTHING
        RETURNING 1
      )
      SELECT parent_ok, name_ok, EXISTS (SELECT 1 FROM ins) AS inserted FROM verdict`,
    ...buildReads(t, gov, accounts.riders, accounts.rider),
    listByOwner: `SELECT ${COLUMNS} FROM ${t} WHERE owner_id = $1 ORDER BY seq`,
    // The subtree walk goes through already-revoked rows too, so a child that
    // slipped in beside an earlier revocation is still found. Rows are locked in
    // id order, so two overlapping revocations cannot deadlock each other.
    revoke: `WITH RECURSIVE sub AS (
        SELECT id FROM ${t} WHERE id = ANY($1::text[])
        UNION
        SELECT c.id FROM ${t} c JOIN sub s ON c.parent_id = s.id
      ), locked AS (
        SELECT r.id FROM ${t} r
        WHERE r.id IN (SELECT id FROM sub) AND r.revoked_at IS NULL
        ORDER BY r.id
        FOR NO KEY UPDATE
      )
      UPDATE ${t} u SET revoked_at = $2
      FROM locked l
      WHERE u.id = l.id AND u.revoked_at IS NULL
      RETURNING u.id`,
    // GREATEST ignores NULL, and a batch that arrives late never moves the time back.
    // Rows already at or past $2 are not written at all (no dead tuple, no lock wait).
    touch: `UPDATE ${t} SET last_used_at = $2
      WHERE id = ANY($1::text[]) AND (last_used_at IS NULL OR last_used_at < $2)`,
    // 64 bits: two tables on one pool must never share a prepared statement name.
    tag: createHash('sha256').update(name.plain).digest('hex').slice(0, 16),
    usage,
    purge,
    proofs,
    org,
    accounts,
  };
}
