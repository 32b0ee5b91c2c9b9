/**
 * @internal The PostgreSQL side of `purgeSessions` (see `../../purge.ts` for
 * the rule): two partial indexes that find ended sessions without a scan of
 * the table, added by their own migration step, and the one statement that
 * picks up to a limit of ended sessions whose subtrees hold only sessions and
 * deletes each with its subtree.
 * @module
 */

/** @internal The statements of the session purge, for one table. */
export interface PurgeSql {
  /** Run by `migrate()` after the usage fields' statements: what an older table lacks. */
  readonly migrate: readonly string[];
  /** $1 cutoff (timestamptz), $2 limit. Rows: the ids removed. */
  readonly purgeSessions: string;
}

/**
 * @internal Build the purge statements for a quoted table `t`; `idx` names an index of it.
 *
 * @example
 * ```ts
 * const { purgeSessions } = buildPurgeSql('"svc_auth_tokens"', (s) => `"svc_auth_tokens_${s}"`);
 * ```
 */
export function buildPurgeSql(t: string, idx: (suffix: string) => string): PurgeSql {
  return {
    migrate: [
      `CREATE INDEX IF NOT EXISTS ${idx('session_expires_idx')} ON ${t} (expires_at) WHERE kind = 'session'`,
      `CREATE INDEX IF NOT EXISTS ${idx('session_revoked_idx')} ON ${t} (revoked_at) WHERE kind = 'session' AND revoked_at IS NOT NULL`,
    ],
    // One statement, so the subtree goes in one step: no reader ever finds a record
    // whose parent was deleted before it. A session under a picked one may end later
    // than it, but every chain through the picked session is refused already, so it
    // goes too. UNION (not UNION ALL) keeps a hand-made parent cycle finite. A second
    // server purging at once deletes what this one did not: a row is counted once.
    // No insert can hang a child under a picked session: insert needs an active parent.
    purgeSessions: `WITH RECURSIVE picked AS (
        SELECT s.id FROM ${t} s
        WHERE s.kind = 'session' AND (s.expires_at <= $1 OR s.revoked_at <= $1)
          AND NOT EXISTS (
            WITH RECURSIVE below AS (
              SELECT c.id, c.kind FROM ${t} c WHERE c.parent_id = s.id
              UNION
              SELECT c.id, c.kind FROM ${t} c JOIN below b ON c.parent_id = b.id
            )
            SELECT 1 FROM below WHERE below.kind <> 'session'
          )
        LIMIT $2
      ), doomed AS (
        SELECT id FROM picked
        UNION
        SELECT c.id FROM ${t} c JOIN doomed d ON c.parent_id = d.id
      )
      DELETE FROM ${t} WHERE id IN (SELECT id FROM doomed)
      RETURNING id`,
  };
}
