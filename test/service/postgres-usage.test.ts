/**
 * Expiry warnings, addresses and allowedIps on PostgreSQL, with two servers
 * (two `createAuth` instances on two pools) sharing one table: a sweep warns
 * once across both, and not again after a restart; last used shows the client
 * through a trusted proxy and not through an untrusted one; a limited token is
 * refused from elsewhere on either server; `migrate()` upgrades a table of
 * the previous release, and a hand-edited list fails closed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import type { Auth, AuthEvent } from '../../src/service';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { testAuth } from '../support/auth';
import { Clock, DAY_MS, T0 } from '../support/clock';
import { rejection } from '../support/errors';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';

const TABLE = tableName('svc_tokens_test', 'usage');
const APP = `svc_auth_usage_${RUN}`;
const withDb = describeWithDb('createAuth on PostgreSQL: usage', 'PostgreSQL usage tests', 'test/service/postgres-usage.test.ts');

withDb('createAuth on PostgreSQL: usage', () => {
  const pools: pg.Pool[] = [];
  const clock = new Clock();
  const events: AuthEvent[][] = [];
  let a: Auth;
  let b: Auth;

  async function server(table = TABLE): Promise<Auth> {
    const pool = newPool(APP, { max: 8 });
    pools.push(pool);
    const tokens = new PostgresTokenStore({ pool, table });
    await tokens.migrate();
    const mine: AuthEvent[] = [];
    events.push(mine);
    return (
      await testAuth({
        everyone: { orgs: { acme: 'owner' } },
        tokens,
        clock,
        trustProxy: ['10.0.0.0/8'],
        onEvent: (e) => void mine.push(e),
      })
    ).auth;
  }

  beforeAll(async () => {
    a = await server();
    b = await server();
  });

  afterAll(async () => {
    await pools[0]?.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await Promise.all(pools.map((p) => p.end()));
  });

  const expiringEvents = async (...auths: Auth[]): Promise<AuthEvent[]> => {
    await Promise.all(auths.map((x) => x.flush()));
    return events.flat().filter((e) => e.type === 'token.expiring');
  };

  it('a sweep warns once across two servers sweeping at once, and not again after a restart', async () => {
    const me = await a.authenticate(await a.issueSession('sweeper'));
    const names = Array.from({ length: 12 }, (_, i) => `soon${i}`);
    for (const [i, name] of names.entries()) await a.client(me).token.create({ name, expiresIn: `${(i % 6) + 1}d` });
    await a.client(me).token.create({ name: 'later', expiresIn: '90d' });
    const sweeps = await Promise.all([
      a.sweepExpiring({ within: '7d', limit: 5 }),
      b.sweepExpiring({ within: '7d', limit: 5 }),
      a.sweepExpiring({ within: '7d', limit: 5 }),
      b.sweepExpiring({ within: '7d', limit: 5 }),
    ]);
    const warned = sweeps.flat().filter((t) => t.ownerId === 'sweeper');
    expect(warned.map((t) => t.name).sort()).toEqual([...names].sort());
    const restarted = await server();
    expect((await restarted.sweepExpiring({ within: '7d' })).filter((t) => t.ownerId === 'sweeper')).toEqual([]);
    const seen = (await expiringEvents(a, b, restarted)).filter((e) => e.type === 'token.expiring' && e.token.ownerId === 'sweeper');
    expect(seen).toHaveLength(12);
    expect(new Set(seen.map((e) => (e.type === 'token.expiring' ? e.token.id : ''))).size).toBe(12);
    // The next threshold is a warning of its own, once.
    clock.advance(DAY_MS);
    const day = await Promise.all([a.sweepExpiring({ within: '1d' }), b.sweepExpiring({ within: '1d' })]);
    expect(
      day
        .flat()
        .filter((t) => t.ownerId === 'sweeper')
        .map((t) => t.name)
        .sort(),
    ).toEqual(['soon1', 'soon7']);
    clock.advance(-DAY_MS);
  });

  it('last used shows the client through a trusted proxy and the peer through an untrusted one, on either server', async () => {
    const me = await a.authenticate(await a.issueSession('proxied'));
    const { token } = await a.client(me).token.create({ name: 'ci' });
    const req = (peer: string, xff: string, ua: string) => ({
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': xff, 'user-agent': ua },
      socket: { remoteAddress: peer },
    });
    clock.advance(1000);
    await b.authenticateRequest(req('10.0.0.5', '198.51.100.1, 203.0.113.7', 'through-proxy'));
    await b.flush();
    let info = await a.client(me).token.get('ci');
    expect(info.lastUsed).toEqual({ at: new Date(T0 + 1000), address: '203.0.113.7', userAgent: 'through-proxy' });
    clock.advance(120_000);
    await a.authenticateRequest(req('192.0.2.66', '203.0.113.7', 'spoofer'));
    await a.flush();
    info = await b.client(await b.authenticate(await b.issueSession('proxied'))).token.get('ci');
    expect(info.lastUsed?.address).toBe('192.0.2.66');
    expect(info.usedFrom.map((u) => [u.address, u.userAgent])).toEqual([
      ['192.0.2.66', 'spoofer'],
      ['203.0.113.7', 'through-proxy'],
    ]);
    clock.advance(-121_000);
  });

  it('allowedIps are stored and hold on both servers; a hand-edited list that is not canonical fails closed', async () => {
    const me = await a.authenticate(await a.issueSession('limited'));
    const { token, info } = await a.client(me).token.create({ name: 'office', allowedIps: ['192.0.2.0/24'] });
    expect((await b.authenticate(token, { address: '192.0.2.9' })).kind).toBe('pat');
    expect(await rejection(b.authenticate(token, { address: '203.0.113.9' }))).toMatchObject({ code: 'forbidden', reason: 'ip' });
    await pools[0]?.query(`UPDATE ${TABLE} SET allowed_ips = ARRAY['192.0.2.9/24'] WHERE id = $1`, [info.id]);
    expect(await rejection(a.authenticate(token, { address: '192.0.2.9' }))).toMatchObject({ code: 'unavailable' });
    await pools[0]?.query(`UPDATE ${TABLE} SET allowed_ips = ARRAY['0.0.0.0/0'] WHERE id = $1`, [info.id]);
    // A hand edit decides the next request of a running server (the row version moved).
    expect((await a.authenticate(token, { address: '203.0.113.9' })).kind).toBe('pat');
  });

  it('migrate() upgrades a table of the previous release: rows kept, the usage columns and index added, twice is fine', async () => {
    const table = tableName('svc_tokens_test', 'usage_old');
    const pool = newPool(APP, { max: 2 });
    pools.push(pool);
    try {
      await pool.query(`CREATE TABLE ${table} (
        seq bigint GENERATED ALWAYS AS IDENTITY, id text NOT NULL PRIMARY KEY, kind text NOT NULL, owner_id text NOT NULL,
        name text NOT NULL, description text, scopes jsonb, parent_id text, created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL, revoked_at timestamptz, committer_identity text, last_used_at timestamptz)`);
      await pool.query(
        `INSERT INTO ${table} (id, kind, owner_id, name, created_at, expires_at, last_used_at) VALUES ('old-1', 'pat', 'alice', 'ci', $1, $2, $1)`,
        [new Date(T0 - DAY_MS), new Date(T0 + 2 * DAY_MS)],
      );
      const store = new PostgresTokenStore({ pool, table });
      await expect(store.readChain('old-1')).rejects.toMatchObject({ code: 'unavailable' });
      await store.migrate();
      await store.migrate();
      const [old] = (await store.readChain('old-1')) ?? [];
      expect(old).toMatchObject({ id: 'old-1', name: 'ci', lastUsedAt: new Date(T0 - DAY_MS) });
      expect(old?.allowedIps ?? null).toBeNull();
      expect(old?.usedFrom ?? []).toEqual([]);
      expect((await store.markExpiring(7 * 86_400, new Date(T0), 10)).map((r) => r.id)).toEqual(['old-1']);
      const { rows } = await pool.query('SELECT indexname FROM pg_indexes WHERE tablename = $1', [table]);
      expect(rows.map((r: { indexname: string }) => r.indexname)).toContain(`${table}_expiring_idx`);
    } finally {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
    }
  });
});
