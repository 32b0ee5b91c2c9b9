/**
 * The chain reads of the token store: the recursive read of whole records, the
 * lean read of versions for records the store knows, each for one id or a JSON
 * array of ids, and (for the batch's first statement) with service accounts
 * riding on them as rows of their own.
 * @module
 */

/** @internal The columns a record is read back from, in one place so every query (and the benchmark's reference read) agrees. */
export const COLUMNS =
  'id, kind, owner_id, name, description, scopes, parent_id, created_at, expires_at, revoked_at, committer_identity, last_used_at, ' +
  // The usage columns (usage.ts).
  'allowed_ips, used_from, expiry_warnings, ' +
  // Governance (org-sql.ts), then the key a token is bound to.
  'org_access, bound_key';

// A corrupted parent link must not spin a recursive query forever.
/** @internal Deepest ancestor a chain read follows (a chain is at most this many records plus one). */
export const MAX_CHAIN_DEPTH = 1000;

/**
 * The version of a row as the chain reads return it: the id of the transaction
 * that wrote this row version. Every UPDATE (a revoke, a last-used write, a
 * hand edit) writes a new version, so an unchanged `xmin` means an unchanged row.
 */
const VERSION = 'xmin::text AS row_version';

/** @internal The chain reads of one table; `gov` is the governance version's column, `riders` the accounts' rows (accounts.ts). */
export interface ChainReads {
  /** $1 id. Rows of the chain, nearest first, each with `root` ($1), `row_version` and `gov_version`. */
  readonly readChain: string;
  /** $1 ids (a JSON array of strings). Rows carry `root` (the requested id) and `row_version`, nearest first within each root. */
  readonly readChains: string;
  /** `readChains`, and the accounts named in $2 as rows whose `root` is null and whose `account` is not. */
  readonly readChainsAccounts: string;
  /** $1 id. At most one row: `id`, `row_version`, `revoked_at`, `gov_version`. */
  readonly readVersion: string;
  /** $1 ids (a JSON array of strings). Rows `id`, `row_version`, `revoked_at`, `gov_version` of the ids that exist. */
  readonly readVersions: string;
  /** `readVersions` with a fifth column `account`, and the accounts named in $2 as rows whose id is null. */
  readonly readVersionsAccounts: string;
  /**
   * $1 id, $2 org, $3 name: exactly one row, `readVersion`'s columns (null when there is no such
   * id) and `account`, the record of that one account or null (a lone service account's request).
   */
  readonly readVersionAccount: string;
}

// The parent step is a LATERAL lookup with LIMIT 1, so it stays one primary-key
// probe per row: joined plainly, a small table gets a hash join over a scan
// of the whole table at every level.
/** @internal Build the chain reads of the quoted table `t`. */
export function buildReads(t: string, gov: string, riders: string, rider: string): ChainReads {
  // Every column of a chain row but the account's, null on an account's row.
  const none = `NULL, ${COLUMNS.split(', ')
    .map(() => 'NULL')
    .join(', ')}, NULL, NULL, NULL`;
  return {
    readChain: chainSql(t, gov),
    readChains: `${chainsCte(t)}
      SELECT root, ${COLUMNS}, row_version, ${gov} FROM chain ORDER BY root, depth`,
    readChainsAccounts: `${chainsCte(t)}
      SELECT root, ${COLUMNS}, row_version, ${gov}, depth, NULL::jsonb AS account FROM chain
      UNION ALL SELECT ${none}, account FROM (${riders}) s
      ORDER BY root, depth`,
    // The lean reads of records the store already knows: only what tells whether a
    // row changed (its version) and, fresh on every read whatever the version says,
    // whether it is revoked. Single-row primary-key probes, no recursion.
    readVersion: `SELECT id, ${VERSION}, revoked_at, ${gov} FROM ${t} WHERE id = $1`,
    readVersions: `SELECT x.id, x.row_version, x.revoked_at, ${gov}
        FROM jsonb_array_elements_text($1::jsonb) AS r(id)
        CROSS JOIN LATERAL (SELECT id, ${VERSION}, revoked_at FROM ${t} WHERE id = r.id LIMIT 1) x`,
    readVersionsAccounts: `SELECT x.id, x.row_version, x.revoked_at, ${gov}, NULL::jsonb AS account
        FROM jsonb_array_elements_text($1::jsonb) AS r(id)
        CROSS JOIN LATERAL (SELECT id, ${VERSION}, revoked_at FROM ${t} WHERE id = r.id LIMIT 1) x
      UNION ALL SELECT NULL, NULL, NULL, NULL, account FROM (${riders}) s`,
    readVersionAccount: `SELECT x.id, x.row_version, x.revoked_at, ${gov}, (${rider}) AS account
        FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT id, ${VERSION}, revoked_at FROM ${t} WHERE id = $1) x ON true`,
  };
}

/** The recursive read of one id's chain, each row tagged with `root`. */
function chainSql(t: string, gov: string): string {
  return `WITH RECURSIVE chain AS (
        SELECT $1::text AS root, ${COLUMNS}, ${VERSION}, 0 AS depth FROM ${t} WHERE id = $1
        UNION ALL
        SELECT c.root, ${prefixed('p')}, p.row_version, c.depth + 1
        FROM chain c CROSS JOIN LATERAL (SELECT ${COLUMNS}, ${VERSION} FROM ${t} WHERE id = c.parent_id LIMIT 1) p
        WHERE c.depth < ${MAX_CHAIN_DEPTH}
      )
      SELECT root, ${COLUMNS}, row_version, ${gov} FROM chain ORDER BY depth`;
}

// The ids travel as one JSON array: a set-returning function over it has a
// fixed row estimate, so the prepared statement keeps one generic plan
// (with `= ANY($1)` PostgreSQL re-plans it on every call, knowing the array).
/** The recursive CTE `chain` of the ids of $1 (a JSON array), each row tagged with its `root`. */
function chainsCte(t: string): string {
  return `WITH RECURSIVE chain AS (
        SELECT r.root, ${prefixed('x')}, x.row_version, 0 AS depth
        FROM jsonb_array_elements_text($1::jsonb) AS r(root)
        CROSS JOIN LATERAL (SELECT ${COLUMNS}, ${VERSION} FROM ${t} WHERE id = r.root LIMIT 1) x
        UNION ALL
        SELECT c.root, ${prefixed('p')}, p.row_version, c.depth + 1
        FROM chain c CROSS JOIN LATERAL (SELECT ${COLUMNS}, ${VERSION} FROM ${t} WHERE id = c.parent_id LIMIT 1) p
        WHERE c.depth < ${MAX_CHAIN_DEPTH}
      )`;
}

/** @internal The columns of a record, each prefixed with `alias.`. */
export function prefixed(alias: string): string {
  return COLUMNS.split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');
}
