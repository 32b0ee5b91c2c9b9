/**
 * PostgreSQL side of last-used times: `migrate()` upgrades a table built by the
 * 0.1.0 schema (rows kept, column added, idempotent), `touch` is one statement
 * for a whole batch, and the service records and lists `lastUsedAt` end to end.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresTokenStore } from '../../src/stores/postgres';
import type { TokenRecord } from '../../src/stores';
import { testAuth } from '../support/auth';
import { Clock, DAY_MS as DAY, T0 } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { record } from '../support/record';

const APP = `svc_auth_test_last_used_${RUN}`;
const withDb = describeWithDb('PostgresTokenStore last used', 'PostgreSQL last-used tests', 'test/stores/postgres-last-used.test.ts');

/** The table exactly as release 0.1.0 created it (before last_used_at). */
function schema010(t: string): string[] {
  return [
    `CREATE TABLE ${t} (
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
        committer_identity text
      )`,
    `CREATE INDEX ${t}_owner_idx ON ${t} (owner_id, seq)`,
    `CREATE INDEX ${t}_parent_idx ON ${t} (parent_id) WHERE parent_id IS NOT NULL`,
    `CREATE INDEX ${t}_owner_name_idx ON ${t} (owner_id, name) WHERE kind = 'pat' AND revoked_at IS NULL`,
  ];
}

withDb('PostgresTokenStore last used', () => {
  let pool: pg.Pool;
  const tables: string[] = [];
  const table = (what: string): string => {
    const name = tableName(`svc_lu_${what}`);
    tables.push(name);
    return name;
  };

  beforeAll(() => {
    pool = newPool(APP, { max: 4 });
  });

  afterAll(async () => {
    for (const t of tables) await pool.query(`DROP TABLE IF EXISTS ${t}`);
    await pool.end();
  });

  it('migrate() upgrades a 0.1.0 table with rows in it: rows kept, last_used_at added, running it twice changes nothing', async () => {
    const t = table('old');
    for (const statement of schema010(t)) await pool.query(statement);
    await pool.query(
      `INSERT INTO ${t} (id, kind, owner_id, name, description, scopes, parent_id, created_at, expires_at, revoked_at, committer_identity)
       VALUES ('old-1', 'pat', 'alice', 'ci', 'from 0.1.0', '[{"resource":"acme/web","permissions":["repo:read"]}]', NULL, $1, $2, NULL, NULL),
              ('old-2', 'pat', 'alice', 'child', NULL, NULL, 'old-1', $1, $2, $1, 'svc:default/users/Identity/bot')`,
      [new Date(T0), new Date(T0 + 30 * DAY)],
    );
    const store = new PostgresTokenStore({ pool, table: t });
    await expect(store.readChain('old-1')).rejects.toMatchObject({ code: 'unavailable' }); // the old table lacks the column
    await store.migrate();
    await store.migrate();
    const chain = (await store.readChain('old-2')) as TokenRecord[];
    expect(chain.map((r) => r.id)).toEqual(['old-2', 'old-1']);
    expect(chain[1]).toMatchObject({
      name: 'ci',
      description: 'from 0.1.0',
      lastUsedAt: null,
      scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }],
    });
    expect(chain[0]?.revokedAt?.getTime()).toBe(T0);
    expect(chain[0]?.committerIdentity).toBe('svc:default/users/Identity/bot');
    await store.touch(['old-1'], new Date(T0 + 5000));
    expect((await store.readChain('old-1'))?.[0]?.lastUsedAt?.getTime()).toBe(T0 + 5000);
    const columns = await pool.query(
      `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = $1 AND column_name = 'last_used_at'`,
      [t],
    );
    expect(columns.rows[0].n).toBe(1);
  });

  it('touch of many ids is one statement (batched), and moves times forward only', async () => {
    const t = table('batch');
    const store0 = new PostgresTokenStore({ pool, table: t });
    await store0.migrate();
    const ids = Array.from({ length: 50 }, (_, i) => `b-${RUN}-${i}`);
    for (const id of ids) {
      await store0.insert(record({ id, kind: 'component', name: id, expiresAt: new Date(T0 + DAY) }), new Date(T0));
    }
    const statements: string[] = [];
    const counting = {
      connect: async () => {
        const client = await pool.connect();
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        return Object.assign(Object.create(client) as pg.PoolClient, {
          query: (...args: unknown[]) => {
            const q = args[0];
            statements.push(typeof q === 'string' ? q : String((q as { text: string }).text));
            return query(...args);
          },
          release: (err?: Error) => client.release(err),
        });
      },
    } as unknown as pg.Pool;
    const store = new PostgresTokenStore({ pool: counting, table: t });
    await store.touch(ids, new Date(T0 + 7000));
    expect(statements).toHaveLength(1);
    await store.touch(ids.slice(0, 10), new Date(T0 + 3000));
    const listed = await store.listByOwner('alice');
    expect(listed.map((r) => r.lastUsedAt?.getTime())).toEqual(ids.map(() => T0 + 7000));
  });

  it('the service records lastUsedAt on PostgreSQL through the recorder, and token.list shows it', async () => {
    const t = table('svc');
    const tokens = new PostgresTokenStore({ pool, table: t });
    await tokens.migrate();
    const clock = new Clock();
    const { auth } = await testAuth({ everyone: { orgs: { acme: 'owner' } }, tokens, clock });
    const me = await auth.authenticate(await auth.issueSession('alice'));
    const { token } = await auth.client(me).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    clock.advance(2500);
    await auth.authenticate(token);
    await auth.flush();
    const [info] = await auth.client(me).token.list();
    expect(info?.lastUsedAt?.getTime()).toBe(Math.floor((T0 + 2500) / 1000) * 1000);
  });
});
