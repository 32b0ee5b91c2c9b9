/**
 * What the PostgreSQL benchmarks share: a counted `pg` pool, a store on a
 * table of its own, and hot tokens to authenticate. Not a benchmark itself.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Auth } from '../../src/service';
import { PostgresTokenStore } from '../../src/stores/postgres/tokens/store';
import { generateKeyRing } from '../../src/tokens/keys/keyring';
import { countedPool } from '../counted-pool';

export const POOL_SIZE = 16;
export const IN_FLIGHT = 32;
/** Distinct hot tokens for the goal runs, as a user's traffic would carry. */
export const DISTINCT_TOKENS = 64;

/** One benchmark's database side: close() drops its table and ends its pool. */
export interface PgBench {
  readonly pool: pg.Pool;
  readonly sent: { count: number };
  readonly store: PostgresTokenStore;
  /** The table name as given to the store (unquoted). */
  readonly tableName: string;
  readonly keys: Awaited<ReturnType<typeof generateKeyRing>>;
  readonly members: { rolesOf: () => { orgs: { acme: 'owner' } } };
  close(): Promise<void>;
}

/** A migrated store on a fresh table, through a counted pool of {@link POOL_SIZE}. */
export async function openPgBench(url: string): Promise<PgBench> {
  const { pool, sent } = countedPool(url, POOL_SIZE);
  const tableName = `svc_tokens_bench_${randomBytes(4).toString('hex')}`;
  // The store's side tables (proofs, governance, accounts, …) are named after its table: all go.
  const close = async (): Promise<void> => {
    const named = `SELECT string_agg(format('%I', tablename), ', ') AS names FROM pg_tables
      WHERE schemaname = current_schema() AND (tablename = $1 OR starts_with(tablename, $1 || '_'))`;
    await pool
      .query(named, [tableName])
      .then(async ({ rows }) => {
        const names: unknown = rows[0]?.names;
        if (typeof names === 'string') await pool.query(`DROP TABLE IF EXISTS ${names} CASCADE`);
      })
      .catch(() => undefined);
    await pool.end();
  };
  try {
    const store = new PostgresTokenStore({ pool, table: tableName });
    await store.migrate();
    const keys = await generateKeyRing();
    const members = { rolesOf: () => ({ orgs: { acme: 'owner' as const } }) };
    return { pool, sent, store, tableName, keys, members, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Hot PATs of one user, each with its own record (so reads are of distinct ids). */
export async function distinctTokens(auth: Auth, n: number): Promise<string[]> {
  const session = await auth.authenticate(await auth.issueSession('alice'));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const { token } = await auth
      .client(session)
      .token.create({ name: `goal-${i}`, scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    await auth.authenticate(token); // signature cache hot
    out.push(token);
  }
  return out;
}
