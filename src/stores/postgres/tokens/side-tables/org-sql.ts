/**
 * @internal The PostgreSQL side of org governance (G1-G4): the `org_access`
 * column of the token table, the policies table beside it, and the governance
 * version, a one-row table that every `setPolicy` moves in its transaction.
 * The chain reads return that version as one more column (a scalar subquery
 * with no outer reference: an InitPlan, evaluated once per statement), so a
 * store learns that policies changed without a round trip of its own.
 * @module
 */

/** @internal The statements of governance, for one token table. */
export interface OrgSql {
  /** Run by `migrate()` after the other steps: add what an older table lacks. */
  readonly migrate: readonly string[];
  /** The scalar subquery of the governance version (text), for the chain and lean reads. */
  readonly version: string;
  /** No parameters. Rows: `version` (text) on each, policy columns (NULL `org` when there is no policy). */
  readonly readPolicies: string;
  /** No parameters. Moves the version (and locks its row until commit); one row: `version`. */
  readonly bump: string;
  /** $1 org. The stored policy, locked (`FOR UPDATE`), or no row. */
  readonly lockPolicy: string;
  /** $1 org, $2 max days, $3 require approval, $4 allow global, $5 require ips, $6 exempt (text[]), $7 by, $8 at. */
  readonly upsertPolicy: string;
  /** $1 ids (text[]). Rows `id`, `org_access`, locked in id order. */
  readonly lockAccess: string;
  /** $1 JSON `[{id, a}]`: sets each row's `org_access` to `a`. */
  readonly writeAccess: string;
  /** $1 org, $2 `org/` prefix. Rows: the PAT records that may reach the org, in creation order. */
  readonly listForOrg: string;
}

/**
 * @internal Build the governance statements for the quoted token table `t`;
 * `sibling(suffix)` is the quoted name of a table beside it; `columns` the
 * column list a record is read from.
 */
export function buildOrgSql(t: string, sibling: (suffix: string) => string, columns: string): OrgSql {
  const policies = sibling('org_policies');
  const gov = sibling('governance');
  const policyColumns = 'org, max_lifetime_days, require_approval, allow_global, require_allowed_ips, exempt, updated_by, updated_at';
  return {
    migrate: [
      // A table made by an older version gains the column; its tokens have no entries (null).
      `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS org_access jsonb`,
      `CREATE TABLE IF NOT EXISTS ${policies} (
        org text NOT NULL PRIMARY KEY,
        max_lifetime_days integer,
        require_approval boolean NOT NULL,
        allow_global boolean NOT NULL,
        require_allowed_ips boolean NOT NULL,
        exempt text[] NOT NULL,
        updated_by text NOT NULL,
        updated_at timestamptz NOT NULL
      )`,
      `CREATE TABLE IF NOT EXISTS ${gov} (
        one boolean NOT NULL PRIMARY KEY DEFAULT true CHECK (one),
        version bigint NOT NULL
      )`,
      `INSERT INTO ${gov} (one, version) VALUES (true, 0) ON CONFLICT (one) DO NOTHING`,
      // No index for listForOrg: tokens with full access (scopes NULL) or a
      // global-tier entry reach every org, so finding them needs a pass over the
      // PAT rows whatever index exists; a GIN index on org_access or scopes
      // would serve only the other branches of that OR and cost every insert and
      // every updateOrgAccess. listForOrg is an owner's listing, never on the
      // request path; the chain reads stay primary-key probes.
    ],
    version: `(SELECT version::text FROM ${gov} WHERE one)`,
    readPolicies: `SELECT g.version::text AS version, ${policyColumns
      .split(', ')
      .map((c) => `p.${c}`)
      .join(', ')}
      FROM ${gov} g LEFT JOIN ${policies} p ON true WHERE g.one`,
    bump: `UPDATE ${gov} SET version = version + 1 WHERE one RETURNING version::text AS version`,
    lockPolicy: `SELECT ${policyColumns} FROM ${policies} WHERE org = $1 FOR UPDATE`,
    upsertPolicy: `INSERT INTO ${policies} (${policyColumns}) VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8)
      ON CONFLICT (org) DO UPDATE SET max_lifetime_days = EXCLUDED.max_lifetime_days, require_approval = EXCLUDED.require_approval,
        allow_global = EXCLUDED.allow_global, require_allowed_ips = EXCLUDED.require_allowed_ips, exempt = EXCLUDED.exempt,
        updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
    // Id order: two overlapping updates lock their rows in the same order and cannot deadlock.
    lockAccess: `SELECT id, org_access FROM ${t} WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`,
    writeAccess: `UPDATE ${t} AS t SET org_access = x.a FROM jsonb_to_recordset($1::jsonb) AS x(id text, a jsonb) WHERE t.id = x.id`,
    listForOrg: `SELECT ${columns} FROM ${t} AS c
      WHERE c.kind = 'pat' AND (
        c.scopes IS NULL
        OR (jsonb_typeof(c.org_access) = 'array' AND c.org_access @> jsonb_build_array(jsonb_build_object('org', $1::text)))
        OR (jsonb_typeof(c.scopes) = 'array' AND EXISTS (
          SELECT 1 FROM jsonb_array_elements(c.scopes) AS s(e)
          WHERE NOT (s.e ? 'resource') OR s.e->>'resource' = $1 OR starts_with(s.e->>'resource', $2)))
      )
      ORDER BY c.seq`,
  };
}
