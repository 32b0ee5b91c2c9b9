/**
 * Upgrade in place for issue 28: a token table of the previous release (every
 * column, no purge index) with rows in it, migrated by this release: rows
 * kept, the two session indexes added, the purge works on the old rows; and
 * the membership table is created beside it in the same database.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresMembershipStore, PostgresTokenStore } from '../../src/stores/postgres';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';

const withDb = describeWithDb('PostgreSQL upgrade for the purge', 'PostgreSQL purge upgrade tests', 'test/stores/postgres-purge.test.ts');

withDb('PostgreSQL upgrade for the purge', () => {
  let pool: pg.Pool;
  const t = tableName('svc_purge_old');
  const m = tableName('svc_purge_members');

  beforeAll(() => {
    pool = newPool(`svc_auth_purge_${RUN}`, { max: 2 });
  });

  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${t}`);
    await pool.query(`DROP TABLE IF EXISTS ${m}`);
    await pool.end();
  });

  it('migrate() upgrades a previous-release table with rows: rows kept, session indexes added, the old ended sessions purged with their subtree', async () => {
    await pool.query(`CREATE TABLE ${t} (
        seq bigint GENERATED ALWAYS AS IDENTITY, id text NOT NULL PRIMARY KEY, kind text NOT NULL, owner_id text NOT NULL,
        name text NOT NULL, description text, scopes jsonb, parent_id text, created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL, revoked_at timestamptz, committer_identity text, last_used_at timestamptz,
        allowed_ips text[], used_from jsonb, expiry_warnings integer[])`);
    const old = new Date(Date.UTC(2020, 0, 1));
    const later = new Date(Date.UTC(2020, 0, 2));
    await pool.query(
      `INSERT INTO ${t} (id, kind, owner_id, name, parent_id, created_at, expires_at) VALUES
        ('grant', 'session', 'alice', 'oauth-x', NULL, $1, $2), ('access', 'session', 'alice', 'oauth-access-token', 'grant', $1, $2),
        ('pat', 'pat', 'alice', 'ci', NULL, $1, $2)`,
      [old, later],
    );
    const store = new PostgresTokenStore({ pool, table: t });
    await store.migrate();
    await store.migrate();
    const { rows } = await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexname LIKE '%session%'`, [t]);
    expect(rows.map((r: { indexname: string }) => r.indexname).sort()).toEqual([`${t}_session_expires_idx`, `${t}_session_revoked_idx`]);
    expect((await store.readChain('access'))?.map((r) => r.id)).toEqual(['access', 'grant']);
    expect(await store.purgeSessions(new Date(Date.UTC(2021, 0, 1)), 1000)).toBe(2);
    expect((await store.listByOwner('alice')).map((r) => r.id)).toEqual(['pat']);
    const members = new PostgresMembershipStore({ pool, table: m });
    await members.migrate();
    await members.set('alice', 'acme', 'viewer');
    expect(await members.list()).toEqual([{ user: 'alice', resource: 'acme', role: 'viewer' }]);
  });
});
