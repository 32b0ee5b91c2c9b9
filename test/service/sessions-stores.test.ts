/**
 * Issue 20, part 2, on every bundled store: a session revoked with
 * `auth.revokeToken` or `client(p).sessions.revoke` on one instance is refused
 * on the next request by another instance sharing the store (two servers, or
 * two `svc` processes on one SVC_HOME), warm signature caches notwithstanding;
 * a session with no record (minted before the upgrade) is refused. On
 * PostgreSQL a session is read by the lean known-record probe once known, and a
 * table made by the first release takes session rows after `migrate()`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { AuthenticationError, UnavailableError } from '../../src/errors';
import type { Auth } from '../../src/service';
import { FileTokenStore, MemoryTokenStore, type TokenStore } from '../../src/stores';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { mintToken, newTokenId } from '../../src/tokens';
import { sharedRing, testAuth } from '../support/auth';
import { Clock, T0 } from '../support/clock';
import { rejection } from '../support/errors';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';

async function instance(tokens: TokenStore, clock: Clock): Promise<Auth> {
  return (await testAuth({ roles: { alice: { orgs: { acme: 'editor' } } }, tokens, clock, lastUsedIntervalMs: 0 })).auth;
}

async function reason(p: Promise<unknown>): Promise<string | undefined> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(AuthenticationError);
  return (err as AuthenticationError).reason;
}

/** The cases every store runs: `a` and `b` are two instances on one store. */
function sharedCases(pair: () => { a: Auth; b: Auth }): void {
  it('auth.revokeToken on one instance: the session is refused on the next request on both, signatures cached', async () => {
    const { a, b } = pair();
    const session = await a.issueSession('alice');
    const p = await b.authenticate(session);
    await a.authenticate(session);
    await b.revokeToken(p.tokenId as string);
    expect(await reason(a.authenticate(session))).toBe('revoked');
    expect(await reason(b.authenticate(session))).toBe('revoked');
  });

  it('client(p).sessions.revoke (sign out elsewhere): refused on the next request by the other instance', async () => {
    const { a, b } = pair();
    const phone = await a.issueSession('alice', { name: 'phone' });
    const laptop = await b.authenticate(await b.issueSession('alice', { name: 'laptop' }));
    await b.authenticate(phone);
    const listed = await b.client(laptop).sessions.list();
    const target = listed.find((s) => s.name === 'phone' && s.status === 'active');
    expect(target).toBeDefined();
    await a.client(await a.authenticate(await a.issueSession('alice'))).sessions.revoke(target?.id as string);
    expect(await reason(b.authenticate(phone))).toBe('revoked');
    expect((await b.client(laptop).sessions.list()).find((s) => s.id === target?.id)?.status).toBe('revoked');
  });

  it('a session with no record (minted before the upgrade) is refused: sign in again', async () => {
    const { a } = pair();
    const iat = T0 / 1000;
    const old = await mintToken(await sharedRing(), {
      kind: 'session',
      iss: 'https://svc.test',
      sub: 'alice',
      jti: newTokenId(),
      iat,
      exp: iat + 3600,
    });
    const err = await rejection(a.authenticate(old));
    expect((err as AuthenticationError).reason).toBe('unknown');
    expect((err as Error).message).toMatch(/sign in again/);
  });
}

describe('sessions on the memory store (one process, one store)', () => {
  const clock = new Clock();
  let a: Auth;
  let b: Auth;
  beforeAll(async () => {
    const store = new MemoryTokenStore();
    [a, b] = [await instance(store, clock), await instance(store, clock)];
  });
  sharedCases(() => ({ a, b }));
});

describe('sessions on the file store (two svc processes on one SVC_HOME)', () => {
  const clock = new Clock();
  let dir: string;
  let a: Auth;
  let b: Auth;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-sessions-'));
    // Two stores on one folder, as two processes would have.
    [a, b] = [await instance(new FileTokenStore(dir), clock), await instance(new FileTokenStore(dir), clock)];
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  sharedCases(() => ({ a, b }));
});

const TABLE = tableName('svc_tokens_sessions');
const APP = `svc_auth_sessions_${RUN}`;
const withDb = describeWithDb('sessions on PostgreSQL', 'PostgreSQL session tests', 'test/service/sessions-stores.test.ts');

withDb('sessions on PostgreSQL (two servers, two pools, one table)', () => {
  const clock = new Clock();
  const pools: pg.Pool[] = [];
  /** Statements sent by server A's pool, in order. */
  const sent: string[] = [];
  let a: Auth;
  let b: Auth;

  beforeAll(async () => {
    const poolA = newPool(APP, { max: 4 });
    const poolB = newPool(APP, { max: 4 });
    pools.push(poolA, poolB);
    const seen = new WeakSet<pg.PoolClient>();
    poolA.on('acquire', (client) => {
      if (seen.has(client)) return;
      seen.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const cfg = args[0];
        sent.push(typeof cfg === 'string' ? cfg : String((cfg as { text?: unknown }).text));
        return query(...args);
      };
    });
    const storeA = new PostgresTokenStore({ pool: poolA, table: TABLE });
    await storeA.migrate();
    a = await instance(storeA, clock);
    b = await instance(new PostgresTokenStore({ pool: poolB, table: TABLE }), clock);
  });

  afterAll(async () => {
    await pools[0]?.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await Promise.all(pools.map((p) => p.end()));
  });

  sharedCases(() => ({ a, b }));

  it('the lean known-record probe applies to sessions: a known session is read by version, and a revocation still holds', async () => {
    const session = await a.issueSession('alice');
    const p = await a.authenticate(session); // the full read: A now knows the record
    sent.length = 0;
    await a.authenticate(session);
    const reads = sent.filter((q) => /^\s*(WITH|SELECT)/.test(q) && !q.includes('set_config'));
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatch(/row_version, revoked_at, .* AS gov_version FROM/); // the lean probe, with the governance version (G4)
    expect(reads[0]).not.toContain('RECURSIVE');
    await b.revokeToken(p.tokenId as string);
    sent.length = 0;
    expect(await reason(a.authenticate(session))).toBe('revoked');
    // The probe saw a new row version and read the record in full again.
    expect(sent.some((q) => q.includes('RECURSIVE'))).toBe(true);
  });

  it('a table made by the first release (no kind constraint, no last_used_at) takes session rows after migrate()', async () => {
    const old = tableName('svc_tokens_sessions', 'v1');
    const admin = pools[1] as pg.Pool;
    try {
      // The DDL of the first release of PostgresTokenStore, as it created tables.
      await admin.query(`CREATE TABLE ${old} (
        seq bigint GENERATED ALWAYS AS IDENTITY, id text NOT NULL PRIMARY KEY, kind text NOT NULL, owner_id text NOT NULL,
        name text NOT NULL, description text, scopes jsonb, parent_id text, created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL, revoked_at timestamptz, committer_identity text)`);
      const checks = await admin.query(`SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c'`, [old]);
      expect(checks.rows).toEqual([]); // nothing to migrate for a new kind: `kind` is free text
      const store = new PostgresTokenStore({ pool: admin, table: old });
      await store.migrate();
      const auth = await instance(store, clock);
      const session = await auth.issueSession('alice');
      const p = await auth.authenticate(session);
      expect((await admin.query(`SELECT kind FROM ${old} WHERE id = $1`, [p.tokenId])).rows).toEqual([{ kind: 'session' }]);
      await auth.revokeToken(p.tokenId as string);
      expect(await reason(auth.authenticate(session))).toBe('revoked');
    } finally {
      await admin.query(`DROP TABLE IF EXISTS ${old}`);
    }
  });

  it('while the database is down a session is refused with UnavailableError, never allowed', async () => {
    const session = await a.issueSession('alice');
    const down = newPool(APP, { connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
    pools.push(down);
    const c = await instance(new PostgresTokenStore({ pool: down, table: TABLE }), clock);
    expect(await rejection(c.authenticate(session))).toBeInstanceOf(UnavailableError);
  });
});
