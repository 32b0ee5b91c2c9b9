/**
 * @internal The PostgreSQL replay cache of DPoP proofs (`TokenStore.claimProof`): a table of its
 * own beside the token table (`<table>_dpop_proofs`, in the same schema), created by `migrate()`.
 * One statement takes a key: inserted when new, or taken over when its earlier claim has expired;
 * two servers claiming the same key at once are ordered by the primary key, and one of them wins.
 * Expired rows are deleted now and then by the same statement's caller (one claim in 256).
 * @module
 */
import type { QueryResult } from 'pg';

/** @internal The statements of the replay cache, for one token table. */
export interface ProofsSql {
  /** Run by `migrate()`: the table and its expiry index. */
  readonly migrate: readonly string[];
  /** $1 key, $2 expires at, $3 now. One row when the key was taken. */
  readonly claim: string;
  /** $1 now. Deletes expired keys. */
  readonly sweep: string;
}

/**
 * @internal Build the replay-cache statements; `t` is the quoted proof table, `idx` names its index.
 *
 * @example
 * ```ts
 * const { claim } = buildProofsSql('"svc_auth_tokens_dpop_proofs"', '"svc_auth_tokens_dpop_proofs_exp_idx"');
 * ```
 */
export function buildProofsSql(t: string, idx: string): ProofsSql {
  return {
    migrate: [
      `CREATE TABLE IF NOT EXISTS ${t} (key text NOT NULL PRIMARY KEY, expires_at timestamptz NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS ${idx} ON ${t} (expires_at)`,
    ],
    claim: `INSERT INTO ${t} AS p (key, expires_at) VALUES ($1, $2)
      ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE p.expires_at <= $3
      RETURNING 1 AS taken`,
    sweep: `DELETE FROM ${t} WHERE expires_at <= $1`,
  };
}

const MAX_KEY = 300;
let claims = 0;

/**
 * @internal Take `key` until `expiresAt` with `query` (one statement on a borrowed connection).
 *
 * @example
 * ```ts
 * const fresh = await claimProofKey(sql.proofs, (text, values) => run((c) => c.query({ text, values })), key, expiresAt, now);
 * ```
 */
export async function claimProofKey(
  sql: ProofsSql,
  query: (text: string, values: unknown[]) => Promise<QueryResult>,
  key: string,
  expiresAt: Date,
  now: Date,
): Promise<boolean> {
  // A key no proof check would make is not taken (fail closed: the proof is refused).
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY) return false;
  if (!(expiresAt instanceof Date) || !(now instanceof Date) || Number.isNaN(expiresAt.getTime() + now.getTime())) return false;
  const { rows } = await query(sql.claim, [key, expiresAt, now]);
  // Off the answer: a failed sweep is retried by a later claim.
  if ((++claims & 255) === 0) query(sql.sweep, [now]).catch(() => undefined);
  return rows.length === 1;
}
