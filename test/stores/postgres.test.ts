import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { ConflictError, UnavailableError, ValidationError } from '../../src/errors';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { tokenStoreConformance } from '../../src/testing';
import type { TokenRecord } from '../../src/stores';
import { DAY_MS as DAY, NOW, T0 } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { namedRecord } from '../support/record';

const TABLE = tableName('svc_tokens_test');
const APP = `svc_auth_store_${RUN}`;
const withDb = describeWithDb('PostgresTokenStore', 'PostgreSQL token store tests', 'test/stores/postgres.test.ts');

const rec = namedRecord;
let forests = 0;

describe('PostgresTokenStore options', () => {
  const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });

  it.each([['Tokens'], ['a-b'], ['a.b.c'], ['tokens; DROP TABLE users'], ['"tokens"'], ['t'.repeat(64)], [''], ['.tokens'], ['1tokens']])(
    'rejects the unsafe table name %j (SQL injection through options)',
    (table) => {
      expect(() => new PostgresTokenStore({ pool, table })).toThrow(ValidationError);
      try {
        new PostgresTokenStore({ pool, table });
      } catch (err) {
        expect((err as ValidationError).issues[0]?.pathText).toBe('table');
      }
    },
  );

  it('accepts name and schema.name', () => {
    expect(new PostgresTokenStore({ pool, table: 'auth.tokens' }).table).toBe('"auth"."tokens"');
    expect(new PostgresTokenStore({ pool }).table).toBe('"svc_auth_tokens"');
  });

  it('misuse fails when built: no pool, bad timeout, unknown option', () => {
    const bad: unknown[] = [
      undefined,
      {},
      { pool: {} },
      { pool, statementTimeoutMs: 0 },
      { pool, statementTimeoutMs: 1.5 },
      { pool, statementTimeoutMs: 2 ** 31 },
      { pool, tabel: 'x' },
      { pool, prepare: 'yes' },
    ];
    for (const options of bad) {
      expect(() => new PostgresTokenStore(options as never)).toThrow(ValidationError);
    }
  });

  it('bad arguments are ValidationError, never a TypeError', async () => {
    const store = new PostgresTokenStore({ pool });
    await expect(store.insert({ id: 5 } as never, NOW)).rejects.toBeInstanceOf(ValidationError);
    await expect(store.insert(rec(), new Date(Number.NaN))).rejects.toBeInstanceOf(ValidationError);
    await expect(store.readChain(undefined as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(store.listByOwner(null as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(store.revoke('abc' as never, NOW)).rejects.toBeInstanceOf(ValidationError);
    await expect(store.revoke(['a'], 'now' as never)).rejects.toBeInstanceOf(ValidationError);
  });

  afterAll(async () => {
    await pool.end();
  });
});

withDb('PostgresTokenStore against PostgreSQL', () => {
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  let admin: pg.Pool;
  let store: PostgresTokenStore;
  let storeB: PostgresTokenStore;
  const dropped: string[] = [TABLE];

  beforeAll(async () => {
    poolA = newPool(APP);
    poolB = newPool(APP);
    admin = newPool(APP, { max: 3 });
    store = new PostgresTokenStore({ pool: poolA, table: TABLE });
    storeB = new PostgresTokenStore({ pool: poolB, table: TABLE });
    await store.migrate();
  });

  afterAll(async () => {
    for (const t of dropped) await admin.query(`DROP TABLE IF EXISTS ${t}`);
    await Promise.all([poolA.end(), poolB.end(), admin.end()]);
  });

  // The shared contract; every case uses fresh ids and owners, so one table serves them all.
  tokenStoreConformance('PostgresTokenStore', () => store, { twin: () => storeB });

  describe('migrate', () => {
    it('runs twice, and five at once from separate pools, without error', async () => {
      const table = `svc_tokens_test_${RUN}_m`;
      dropped.push(table);
      const pools = Array.from({ length: 5 }, () => newPool(APP, { max: 1 }));
      try {
        const stores = pools.map((pool) => new PostgresTokenStore({ pool, table }));
        await Promise.all(stores.map((s) => s.migrate()));
        await stores[0]?.migrate();
        await expect(stores[1]?.insert(rec(), NOW)).resolves.toBe('ok');
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    });

    it('gives a 63-character table distinct index names (no silent truncation clash)', async () => {
      const table = `svc_tokens_test_${RUN}_`.padEnd(63, 'x');
      dropped.push(table);
      await new PostgresTokenStore({ pool: poolA, table }).migrate();
      const { rows } = await admin.query('SELECT indexname FROM pg_indexes WHERE tablename = $1', [table]);
      // primary key + owner + parent + (owner, name) + expiring (the expiry sweep) + the two of the session purge
      expect(rows).toHaveLength(7);
    });

    it('an unmigrated table is UnavailableError, not a raw driver error', async () => {
      const s = new PostgresTokenStore({ pool: poolA, table: `svc_tokens_test_${RUN}_none` });
      await expect(s.readChain('x')).rejects.toBeInstanceOf(UnavailableError);
    });
  });

  describe('round trips', () => {
    it('readChain returns the stored record, equal field by field, and null for unknown ids', async () => {
      const r = rec({
        description: 'deploys',
        scopes: [
          { resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] },
          { resource: 'acme', permissions: ['org:read'] },
          { permissions: ['repo:read'] },
        ],
        committerIdentity: 'svc:default/users/Identity/bot',
        createdAt: new Date(T0 - 1000),
      });
      expect(await store.insert(r, NOW)).toBe('ok');
      const chain = await storeB.readChain(r.id);
      expect(chain).toEqual([r]);
      expect(Object.isFrozen(chain?.[0])).toBe(true);
      expect(await store.readChain(`nope-${RUN}`)).toBeNull();
      expect(await store.readChain('')).toBeNull();
      expect(await store.readChain('x'.repeat(10_000))).toBeNull();
    });

    it('readChain is nearest first through three generations', async () => {
      const a = rec();
      const b = rec({ parentId: a.id });
      const c = rec({ parentId: b.id });
      for (const r of [a, b, c]) expect(await store.insert(r, NOW)).toBe('ok');
      expect((await store.readChain(c.id))?.map((r) => r.id)).toEqual([c.id, b.id, a.id]);
    });

    it('listByOwner returns every kind and status in creation order', async () => {
      const owner = `owner-${RUN}-list`;
      const made = [
        rec({ ownerId: owner, name: 'same' }),
        rec({ ownerId: owner, kind: 'component', name: 'same' }),
        rec({ ownerId: owner, name: 'other', expiresAt: new Date(T0 - DAY), createdAt: new Date(T0 - 2 * DAY) }),
      ];
      for (const r of made) expect(await store.insert(r, NOW)).toBe('ok');
      await store.revoke([made[0]?.id ?? ''], NOW);
      expect((await storeB.listByOwner(owner)).map((r) => r.id)).toEqual(made.map((r) => r.id));
      expect(await store.listByOwner(`nobody-${RUN}`)).toEqual([]);
    });

    it('reads agree with prepared statements off, and two tables on one pool keep their own prepared statements', async () => {
      const other = `svc_tokens_test_${RUN}_p`;
      dropped.push(other);
      const plain = new PostgresTokenStore({ pool: poolA, table: TABLE, prepare: false });
      const second = new PostgresTokenStore({ pool: poolA, table: other });
      await second.migrate();
      const here = rec({ ownerId: `owner-${RUN}-prep` });
      const there = rec({ ownerId: here.ownerId });
      await store.insert(here, NOW);
      await second.insert(there, NOW);
      for (let i = 0; i < 5; i++) {
        expect(await plain.readChain(here.id)).toEqual([here]);
        expect(await store.readChain(here.id)).toEqual([here]);
        expect(await second.readChain(there.id)).toEqual([there]);
        expect(await second.readChain(here.id)).toBeNull();
        expect((await plain.listByOwner(here.ownerId)).map((r) => r.id)).toEqual([here.id]);
        expect((await second.listByOwner(here.ownerId)).map((r) => r.id)).toEqual([there.id]);
      }
    });

    it('hostile values are stored and read back verbatim (SQL injection through values)', async () => {
      const evil = `x'); DROP TABLE ${TABLE}; --`;
      const r = rec({ ownerId: evil, name: 'n', description: "'; SELECT pg_sleep(10); --", id: `${evil}-${RUN}` });
      expect(await store.insert(r, NOW)).toBe('ok');
      expect(await store.readChain(r.id)).toEqual([r]);
      expect((await store.listByOwner(evil)).map((x) => x.id)).toEqual([r.id]);
      expect(await store.revoke([r.id], NOW)).toEqual([r.id]);
    });
  });

  describe('insert rules', () => {
    it('T7: an active PAT name is taken; a revoked or expired one may be reused', async () => {
      const owner = `owner-${RUN}-names`;
      const first = rec({ ownerId: owner, name: 'ci' });
      expect(await store.insert(first, NOW)).toBe('ok');
      expect(await store.insert(rec({ ownerId: owner, name: 'ci' }), NOW)).toBe('name_taken');
      expect(await store.insert(rec({ ownerId: `${owner}-2`, name: 'ci' }), NOW)).toBe('ok');
      expect(await store.insert(rec({ ownerId: owner, name: 'ci', kind: 'component' }), NOW)).toBe('ok');
      await store.revoke([first.id], NOW);
      const second = rec({ ownerId: owner, name: 'ci', expiresAt: new Date(T0 + DAY) });
      expect(await store.insert(second, NOW)).toBe('ok');
      // At the moment second expires its name is free again.
      expect(await store.insert(rec({ ownerId: owner, name: 'ci' }), new Date(T0 + DAY))).toBe('ok');
    });

    it('parent missing, revoked or expired at now: parent_inactive and nothing stored', async () => {
      const revoked = rec();
      const expiring = rec({ expiresAt: new Date(T0 + DAY) });
      await store.insert(revoked, NOW);
      await store.insert(expiring, NOW);
      await store.revoke([revoked.id], NOW);
      const children = [
        rec({ parentId: `missing-${RUN}` }),
        rec({ parentId: revoked.id }),
        rec({ parentId: expiring.id }),
        rec({ parentId: revoked.id, kind: 'component' }),
      ];
      const nows = [NOW, NOW, new Date(T0 + DAY), NOW];
      for (const [i, child] of children.entries()) {
        expect(await store.insert(child, nows[i] ?? NOW)).toBe('parent_inactive');
        expect(await store.readChain(child.id)).toBeNull();
      }
    });

    it('a duplicate id is ConflictError', async () => {
      const r = rec();
      expect(await store.insert(r, NOW)).toBe('ok');
      await expect(storeB.insert({ ...r, name: 'other-name' }, NOW)).rejects.toBeInstanceOf(ConflictError);
      await expect(storeB.insert({ ...r, kind: 'component' }, NOW)).rejects.toBeInstanceOf(ConflictError);
    });

    it('T7 race: 30 parallel inserts of one name across two pools, exactly one ok', async () => {
      const owner = `owner-${RUN}-race`;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? store : storeB).insert(rec({ ownerId: owner, name: 'deploy' }), NOW)),
      );
      expect(results.filter((r) => r === 'ok')).toHaveLength(1);
      expect(results.filter((r) => r === 'name_taken')).toHaveLength(29);
      const active = (await store.listByOwner(owner)).filter((r) => r.revokedAt === null);
      expect(active).toHaveLength(1);
    });
  });

  describe('revoke', () => {
    it('T6: revokes ids and their whole subtree, returns only newly revoked ids, keeps earlier revokedAt', async () => {
      const root = rec();
      const kid = rec({ parentId: root.id });
      const grandkid = rec({ parentId: kid.id });
      const sibling = rec();
      for (const r of [root, kid, grandkid, sibling]) await store.insert(r, NOW);
      const early = new Date(T0 + 1000);
      expect(await store.revoke([kid.id], early)).toEqual(expect.arrayContaining([kid.id, grandkid.id]));
      const later = new Date(T0 + 5000);
      const second = await storeB.revoke([root.id, `unknown-${RUN}`], later);
      expect(second).toEqual([root.id]);
      expect((await store.readChain(grandkid.id))?.map((r) => r.revokedAt?.getTime())).toEqual([
        early.getTime(),
        early.getTime(),
        later.getTime(),
      ]);
      expect((await store.readChain(sibling.id))?.[0]?.revokedAt).toBeNull();
      expect(await store.revoke([], later)).toEqual([]);
      expect(await store.revoke([root.id], later)).toEqual([]);
    });

    it('property: revoke matches a model of subtrees on random forests', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
          fc.array(fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
          async (parentPicks, revokeSets) => {
            const prefix = `f-${RUN}-${++forests}`;
            // Node i's parent is some earlier node, or none: every forest shape is reachable.
            const parents = parentPicks.map((p, i) => (i === 0 || p % (i + 1) === i ? null : p % i));
            const ids = parents.map((_, i) => `${prefix}-${i}`);
            for (const [i, parent] of parents.entries()) {
              const r = rec({ id: ids[i] as string, ownerId: prefix, parentId: parent === null ? null : (ids[parent] as string) });
              expect(await store.insert(r, NOW)).toBe('ok');
            }
            const revoked = new Set<number>();
            for (const set of revokeSets) {
              const roots = set.map((n) => n % ids.length);
              const expected = new Set<number>();
              const visit = (n: number): void => {
                if (!revoked.has(n)) expected.add(n);
                parents.forEach((p, child) => {
                  if (p === n) visit(child);
                });
              };
              roots.forEach(visit);
              const got = await store.revoke(
                roots.map((n) => ids[n] as string),
                NOW,
              );
              expect(new Set(got)).toEqual(new Set([...expected].map((n) => ids[n])));
              expect(got).toHaveLength(expected.size);
              expected.forEach((n) => revoked.add(n));
            }
          },
        ),
        { numRuns: 25 },
      );
    });

    it('race: parent revoke vs child insert, 50 times, never leaves an active child of a revoked parent', async () => {
      for (let i = 0; i < 50; i++) {
        const parent = rec({ ownerId: `owner-${RUN}-rr` });
        await store.insert(parent, NOW);
        const child = rec({ ownerId: parent.ownerId, parentId: parent.id });
        const [inserted] = await Promise.all([storeB.insert(child, NOW), store.revoke([parent.id], NOW)]);
        const stored = await store.readChain(child.id);
        if (inserted === 'ok') {
          expect(stored?.[0]?.revokedAt).not.toBeNull();
        } else {
          expect(inserted).toBe('parent_inactive');
          expect(stored).toBeNull();
        }
      }
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM ${TABLE} c JOIN ${TABLE} p ON p.id = c.parent_id
         WHERE c.revoked_at IS NULL AND p.revoked_at IS NOT NULL`,
      );
      expect(rows[0].n).toBe(0);
    });
  });

  describe('failure: fail closed and recover', () => {
    it('a closed port is UnavailableError from every method', async () => {
      const dead = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/test', connectionTimeoutMillis: 2000 });
      dead.on('error', () => {});
      try {
        const s = new PostgresTokenStore({ pool: dead, table: TABLE });
        await expect(s.migrate()).rejects.toBeInstanceOf(UnavailableError);
        await expect(s.insert(rec(), NOW)).rejects.toBeInstanceOf(UnavailableError);
        await expect(s.readChain('x')).rejects.toBeInstanceOf(UnavailableError);
        await expect(s.listByOwner('x')).rejects.toBeInstanceOf(UnavailableError);
        await expect(s.revoke(['x'], NOW)).rejects.toBeInstanceOf(UnavailableError);
        const err = await s.readChain('x').catch((e: unknown) => e);
        expect((err as UnavailableError).code).toBe('unavailable');
        expect((err as UnavailableError).cause).toBeDefined();
      } finally {
        await dead.end();
      }
    });

    it('statement timeout: a locked table makes reads and inserts UnavailableError, then the store recovers', async () => {
      const pool = newPool(APP, { max: 2 });
      const s = new PostgresTokenStore({ pool, table: TABLE, statementTimeoutMs: 300 });
      const known = rec();
      await s.insert(known, NOW);
      const locker = await admin.connect();
      try {
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${TABLE} IN ACCESS EXCLUSIVE MODE`);
        const hostile = `secret-${RUN}`;
        const err = await s.readChain(hostile).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UnavailableError);
        // No values in the message.
        expect((err as Error).message).not.toContain(hostile);
        await expect(s.insert(rec(), NOW)).rejects.toBeInstanceOf(UnavailableError);
        await expect(s.revoke([known.id], NOW)).rejects.toBeInstanceOf(UnavailableError);
      } finally {
        await locker.query('ROLLBACK');
        locker.release();
      }
      expect((await s.readChain(known.id))?.[0]?.id).toBe(known.id);
      expect(await s.insert(rec(), NOW)).toBe('ok');
      await pool.end();
    });

    it('pg_terminate_backend of the store connections: UnavailableError mid-statement, then recovery', async () => {
      const appName = `svc_auth_test_${RUN}`;
      const pool = newPool(APP, { max: 2, application_name: appName });
      const s = new PostgresTokenStore({ pool, table: TABLE, statementTimeoutMs: 10_000 });
      const known = rec();
      await s.insert(known, NOW);
      const locker = await admin.connect();
      let pending: Promise<unknown> = Promise.resolve();
      try {
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${TABLE} IN ACCESS EXCLUSIVE MODE`);
        pending = s.readChain(known.id).catch((e: unknown) => e);
        // Wait until the store's statement is blocked on the lock, then kill its backends.
        for (let i = 0; i < 100; i++) {
          const { rows } = await admin.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [appName],
          );
          if (rows[0].n > 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [appName]);
        expect(await pending).toBeInstanceOf(UnavailableError);
      } finally {
        await locker.query('ROLLBACK');
        locker.release();
      }
      // Idle connections were killed too; the pool drops them and connects afresh.
      let recovered: TokenRecord[] | null = null;
      for (let i = 0; i < 3 && recovered === null; i++) {
        recovered = await s.readChain(known.id).catch((e: unknown) => {
          expect(e).toBeInstanceOf(UnavailableError);
          return null;
        });
      }
      expect(recovered?.[0]?.id).toBe(known.id);
      await pool.end();
    });

    it('a malformed stored row fails closed with UnavailableError', async () => {
      const id = `bad-${RUN}`;
      await admin.query(
        `INSERT INTO ${TABLE} (id, kind, owner_id, name, created_at, expires_at) VALUES ($1, 'bogus', 'x', 'n', now(), now())`,
        [id],
      );
      await expect(store.readChain(id)).rejects.toBeInstanceOf(UnavailableError);
    });
  });
});
