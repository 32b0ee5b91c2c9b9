/**
 * PostgresMembershipStore: the membership conformance suite against
 * PostgreSQL (two pools on one table, as two servers), its options checked when
 * built, rows edited by hand failing closed, and the roles it keeps deciding
 * for `createAuth` end to end (an unreachable database refuses, never allows).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ValidationError } from '../../src/errors';
import { PostgresMembershipStore, PostgresTokenStore } from '../../src/stores/postgres';
import { membershipStoreConformance } from '../../src/testing';
import { testAuth } from '../support/auth';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';

const TABLE = tableName('svc_members_test');
const APP = `svc_auth_members_${RUN}`;
const withDb = describeWithDb('PostgresMembershipStore', 'PostgreSQL membership store tests', 'test/stores/postgres-members.test.ts');

describe('PostgresMembershipStore options', () => {
  const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
  afterAll(async () => {
    await pool.end();
  });

  it('misuse fails when built: no pool, an unsafe table name (SQL injection through options), a bad timeout, an unknown option', () => {
    const bad: unknown[] = [
      undefined,
      {},
      { pool: {} },
      { pool, table: 'members; DROP TABLE users' },
      { pool, table: '"members"' },
      { pool, table: 'a.b.c' },
      { pool, statementTimeoutMs: 0 },
      { pool, statementTimeoutMs: 1.5 },
      { pool, tabel: 'x' },
    ];
    for (const options of bad) expect(() => new PostgresMembershipStore(options as never)).toThrow(ValidationError);
    expect(new PostgresMembershipStore({ pool }).table).toBe('"svc_auth_members"');
    expect(new PostgresMembershipStore({ pool, table: 'auth.members' }).table).toBe('"auth"."members"');
  });

  it('an unreachable database is UnavailableError naming the membership store, and bad input is refused before it is asked', async () => {
    const store = new PostgresMembershipStore({ pool, statementTimeoutMs: 2000 });
    await expect(store.rolesOf('alice')).rejects.toMatchObject({ code: 'unavailable', message: /^membership store unavailable/ });
    await expect(store.set('alice', 'a/b/c', 'viewer')).rejects.toBeInstanceOf(ValidationError);
  });
});

withDb('PostgresMembershipStore against PostgreSQL', () => {
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  let store: PostgresMembershipStore;
  let storeB: PostgresMembershipStore;
  const dropped = [TABLE];

  beforeAll(async () => {
    poolA = newPool(APP);
    poolB = newPool(APP);
    store = new PostgresMembershipStore({ pool: poolA, table: TABLE });
    storeB = new PostgresMembershipStore({ pool: poolB, table: TABLE });
    await store.migrate();
  });

  afterAll(async () => {
    for (const t of dropped) await poolA.query(`DROP TABLE IF EXISTS ${t}`);
    await poolA.end();
    await poolB.end();
  });

  membershipStoreConformance('PostgresMembershipStore', () => store, { twin: () => storeB });

  it('migrate runs twice, and five at once from separate pools, without error', async () => {
    const table = tableName('svc_members_test', 'm');
    dropped.push(table);
    const pools = Array.from({ length: 5 }, () => newPool(APP, { max: 1 }));
    try {
      await Promise.all(pools.map((pool) => new PostgresMembershipStore({ pool, table }).migrate()));
      const again = new PostgresMembershipStore({ pool: poolA, table });
      await again.migrate();
      await again.set('alice', 'acme', 'viewer');
      expect(await again.list()).toEqual([{ user: 'alice', resource: 'acme', role: 'viewer' }]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('a row edited by hand into something that is not a membership fails closed: rolesOf rejects, never reads a role from it', async () => {
    const user = `hand-${RUN}`;
    await store.set(user, 'acme', 'viewer');
    await poolA.query(`UPDATE ${TABLE} SET resource = 'ACME' WHERE user_id = $1`, [user]);
    await expect(store.rolesOf(user)).rejects.toMatchObject({ code: 'unavailable', message: /malformed/ });
    await expect(poolA.query(`UPDATE ${TABLE} SET role = 'root' WHERE user_id = $1`, [user])).rejects.toThrow(/check/i);
    await poolA.query(`DELETE FROM ${TABLE} WHERE user_id = $1`, [user]);
  });

  it('createAuth reads roles from the table on each authenticate: a role set or removed with another pool holds on the next request', async () => {
    const tokensTable = tableName('svc_members_test', 'tok');
    dropped.push(tokensTable);
    const tokens = new PostgresTokenStore({ pool: poolA, table: tokensTable });
    await tokens.migrate();
    const { auth } = await testAuth({ members: store, tokens });
    const user = `e2e-${RUN}`;
    const session = await auth.issueSession(user);
    expect(auth.authorize(await auth.authenticate(session), 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'role' });
    await storeB.set(user, 'acme', 'editor');
    expect(auth.authorize(await auth.authenticate(session), 'acme/web', 'repo:write')).toEqual({ allowed: true });
    await storeB.remove(user, 'acme');
    expect(auth.authorize(await auth.authenticate(session), 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'role' });
  });

  it('a missing table is UnavailableError that says to run migrate(), so authenticate refuses', async () => {
    const missing = new PostgresMembershipStore({ pool: poolA, table: tableName('svc_members_test', 'none') });
    await expect(missing.rolesOf('alice')).rejects.toMatchObject({ code: 'unavailable', message: /table missing \(run migrate\(\)\)/ });
  });
});
