/**
 * PostgresTokenStore under load and faults (issues 12 and 13): coalesced reads
 * stay exact per id, a connection cut between statements does not crash the
 * process, terminated backends and a locked table fail closed with
 * UnavailableError and the store recovers, and text PostgreSQL cannot hold is
 * refused with ValidationError rather than a database error.
 *
 * Only this file's own backends are terminated: every pool it makes sets an
 * application_name unique to the run, and terminations filter on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { UnavailableError, ValidationError } from '../../src/errors';
import { PostgresTokenStore } from '../../src/stores/postgres';
import type { TokenRecord } from '../../src/stores';
import { NOW, T0 } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { record } from '../support/record';

const TABLE = tableName('svc_tokens_test', 'faults');
const APP = `svc_auth_faults_${RUN}`;
const withDb = describeWithDb('PostgresTokenStore faults', 'PostgreSQL fault tests', 'test/stores/postgres-faults.test.ts');

let counter = 0;
/** A record of this run's owner with a name of its own. */
const rec = (over: Partial<{ -readonly [K in keyof TokenRecord]: TokenRecord[K] }> = {}): TokenRecord =>
  record({ ownerId: `owner-${RUN}`, name: `t${++counter}`, scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }], ...over });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

withDb('PostgresTokenStore under load and faults', { timeout: 60_000 }, () => {
  let admin: pg.Pool;
  let pool: pg.Pool;
  let store: PostgresTokenStore;

  beforeAll(async () => {
    admin = newPool(`${APP}_admin`, { max: 3 });
    pool = newPool(APP, { max: 8 });
    store = new PostgresTokenStore({ pool, table: TABLE });
    await store.migrate();
  });

  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await Promise.all([pool.end(), admin.end()]);
  });

  async function terminate(app: string): Promise<number> {
    const { rows } = await admin.query(
      'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [app],
    );
    return rows[0].n as number;
  }

  describe('coalesced chain reads', () => {
    it('64 concurrent reads of distinct chains go out in a few statements and each gets exactly its own chain', async () => {
      const roots = Array.from({ length: 16 }, () => rec());
      const kids = roots.map((r) => rec({ parentId: r.id }));
      const grandkids = kids.map((k) => rec({ parentId: k.id }));
      for (const r of [...roots, ...kids, ...grandkids]) expect(await store.insert(r, NOW)).toBe('ok');
      const counted = newPool(`${APP}_count`, { max: 8 });
      let statements = 0;
      counted.on('connect', (client) => {
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as { query: unknown }).query = (...args: unknown[]) => {
          statements++;
          return query(...args);
        };
      });
      try {
        const s = new PostgresTokenStore({ pool: counted, table: TABLE });
        await s.readChain(roots[0]?.id ?? ''); // connect outside the count
        statements = 0;
        const asked = [...grandkids, ...kids, ...roots, `missing-${RUN}`].flatMap((r) => [typeof r === 'string' ? r : r.id]);
        const all = [...asked, ...asked.slice(0, 15)];
        const chains = await Promise.all(all.map((id) => s.readChain(id)));
        // 49 distinct ids made in one turn: split over the free slots into 3 parts of at least 16, each part
        // at most a lean read and a recursive one (64 one by one before coalescing).
        expect(statements).toBeLessThanOrEqual(6);
        all.forEach((id, i) => {
          const chain = chains[i];
          if (id.startsWith('missing')) return expect(chain).toBeNull();
          const g = grandkids.findIndex((x) => x.id === id);
          const k = kids.findIndex((x) => x.id === id);
          const expected = g >= 0 ? [grandkids[g], kids[g], roots[g]] : k >= 0 ? [kids[k], roots[k]] : [roots.find((x) => x.id === id)];
          expect(chain).toEqual(expected);
        });
      } finally {
        await counted.end();
      }
    });

    it('a malformed row under one id fails only that id; the other reads of the same statement succeed', async () => {
      const good = rec();
      await store.insert(good, NOW);
      const bad = `bad-${RUN}`;
      await admin.query(
        `INSERT INTO ${TABLE} (id, kind, owner_id, name, created_at, expires_at) VALUES ($1, 'bogus', 'x', 'n', now(), now())`,
        [bad],
      );
      const [a, b, c] = await Promise.allSettled([store.readChain(good.id), store.readChain(bad), store.readChain(good.id)]);
      expect(a.status === 'fulfilled' && a.value?.[0]?.id).toBe(good.id);
      expect(c.status === 'fulfilled' && c.value?.[0]?.id).toBe(good.id);
      expect(b.status === 'rejected' && b.reason).toBeInstanceOf(UnavailableError);
    });

    it('T5 stale read across two pools: once a revoke on pool B has committed, the next read on pool A sees it, under constant load', async () => {
      const other = newPool(`${APP}_b`, { max: 8 });
      // Pool A hands each answer over 15 ms late: a read the server ran before the revoke
      // committed is still on the wire for the store when the revoke is acknowledged.
      const slow = newPool(`${APP}_slow`, { max: 8 });
      slow.on('connect', (client) => {
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        (client as { query: unknown }).query = async (...args: unknown[]) => {
          const result = await query(...args);
          await sleep(15);
          return result;
        };
      });
      const storeA = new PostgresTokenStore({ pool: slow, table: TABLE });
      const tokens = Array.from({ length: 20 }, () => rec());
      for (const t of tokens) await store.insert(t, NOW);
      await other.query('SELECT 1');
      let running = true;
      // Background readers keep batches on the wire for the very ids being revoked.
      const load = (async () => {
        while (running) await Promise.all(tokens.map((t) => storeA.readChain(t.id).catch(() => null)));
      })();
      try {
        for (const t of tokens) {
          await sleep(Math.floor(Math.random() * 5));
          // One autocommit UPDATE (the store's revoke confirms in a second pass, which would
          // give reads already on the wire time to finish): the revoke is committed when it resolves.
          const { rowCount } = await other.query(`UPDATE ${TABLE} SET revoked_at = $2 WHERE id = $1`, [t.id, NOW]);
          expect(rowCount).toBe(1);
          const after = await storeA.readChain(t.id);
          expect(after?.[0]?.revokedAt?.getTime()).toBe(T0);
        }
      } finally {
        running = false;
        await load;
        await Promise.all([other.end(), slow.end()]);
      }
    });
  });

  describe('faults', () => {
    it('a connection cut between two statements of a transaction is UnavailableError, not an unhandled error event that ends the process', async () => {
      const app = `${APP}_cut`;
      const cut = newPool(app, { max: 1 });
      let killed = false;
      cut.on('acquire', (client) => {
        if (killed) return;
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        (client as { query: unknown }).query = async (...args: unknown[]) => {
          const result = await query(...args);
          if (!killed && args[0] === 'BEGIN') {
            killed = true;
            const ended = new Promise((r) => client.once('end', r));
            await terminate(app);
            await ended; // the 'error' event has fired on the held client by now
          }
          return result;
        };
      });
      try {
        const s = new PostgresTokenStore({ pool: cut, table: TABLE });
        await expect(s.insert(rec(), NOW)).rejects.toBeInstanceOf(UnavailableError);
        expect(killed).toBe(true);
        const later = rec();
        expect(await s.insert(later, NOW)).toBe('ok');
        expect((await s.readChain(later.id))?.[0]?.id).toBe(later.id);
      } finally {
        await cut.end();
      }
    });

    /** 32 reads in flight for `ms`; every answer is checked as it comes. */
    async function underLoad(s: PostgresTokenStore, live: TokenRecord, revoked: TokenRecord, ms: number, fault: () => Promise<void>) {
      const tally = { ok: 0, unavailable: 0, lastOk: 0 };
      const until = Date.now() + ms;
      const worker = async (i: number): Promise<void> => {
        while (Date.now() < until) {
          const target = i % 2 === 0 ? live : revoked;
          try {
            const chain = await s.readChain(target.id);
            // Fail closed: the revoked token is never read back as active.
            expect(chain?.[0]?.id).toBe(target.id);
            expect(chain?.[0]?.revokedAt === null).toBe(target === live);
            tally.ok++;
            tally.lastOk = Date.now();
          } catch (err) {
            expect(err).toBeInstanceOf(UnavailableError);
            tally.unavailable++;
            await sleep(5);
          }
        }
      };
      await Promise.all([...Array.from({ length: 32 }, (_, i) => worker(i)), fault()]);
      return tally;
    }

    it('database goes away under load: backends terminated again and again, every read is correct or UnavailableError, then reads recover', async () => {
      const app = `${APP}_load`;
      const p = newPool(app, { max: 8 });
      try {
        const s = new PostgresTokenStore({ pool: p, table: TABLE, statementTimeoutMs: 2_000 });
        const live = rec();
        const revoked = rec();
        await s.insert(live, NOW);
        await s.insert(revoked, NOW);
        await s.revoke([revoked.id], NOW);
        let kills = 0;
        const tally = await underLoad(s, live, revoked, 1_500, async () => {
          for (let i = 0; i < 5; i++) {
            await sleep(150);
            kills += await terminate(app);
          }
        });
        expect(kills).toBeGreaterThan(0);
        expect(tally.ok).toBeGreaterThan(0);
        // Recovery: right after the last kill, reads answer again.
        expect((await s.readChain(live.id).catch(() => s.readChain(live.id)))?.[0]?.id).toBe(live.id);
        expect(tally.lastOk).toBeGreaterThan(0);
      } finally {
        await p.end();
      }
    });

    it('a lock held on the table under load: reads fail with UnavailableError at the deadline, never allow, and recover once it is released', async () => {
      const app = `${APP}_lock`;
      // The server cancels its own statement too, so no backend is left waiting on the lock.
      const p = newPool(app, { max: 8, statement_timeout: 250 });
      try {
        const s = new PostgresTokenStore({ pool: p, table: TABLE, statementTimeoutMs: 300 });
        const live = rec();
        const revoked = rec();
        await s.insert(live, NOW);
        await s.insert(revoked, NOW);
        await s.revoke([revoked.id], NOW);
        let releasedAt = 0;
        const tally = await underLoad(s, live, revoked, 1_800, async () => {
          await sleep(200);
          const locker = await admin.connect();
          try {
            await locker.query('BEGIN');
            await locker.query(`LOCK TABLE ${TABLE} IN ACCESS EXCLUSIVE MODE`);
            await sleep(700);
          } finally {
            await locker.query('ROLLBACK');
            locker.release();
            releasedAt = Date.now();
          }
        });
        expect(tally.unavailable).toBeGreaterThan(0);
        expect(tally.lastOk).toBeGreaterThan(releasedAt);
      } finally {
        await p.end();
      }
    });
  });

  describe('text PostgreSQL cannot hold (issue 13, defect 6)', () => {
    it.each([
      ['a NUL in the description', { description: 'a\u0000b' }],
      ['a NUL in the name', { name: 'n\u0000' }],
      ['a lone high surrogate in the description', { description: 'x\uD800y' }],
      ['a lone low surrogate in the committer identity', { committerIdentity: 'svc:default/users/Identity/\uDC00' }],
      [
        'a NUL in a scope pattern',
        { scopes: [{ resource: 'acme/web', permissions: ['repo:read' as const], allowedMatches: ['Doc/\u0000'] }] },
      ],
    ])('%s is refused with ValidationError, never a database error (503)', async (_what, over) => {
      const r = rec(over);
      const err = await store.insert(r, NOW).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).code).toBe('validation');
      expect(await store.readChain(r.id)).toBeNull();
    });

    it('valid astral characters and other control characters go in and out unchanged', async () => {
      const r = rec({ description: 'emoji \u{1F600} tab\t bell\u0007 \uFFFD' });
      expect(await store.insert(r, NOW)).toBe('ok');
      expect(await store.readChain(r.id)).toEqual([r]);
    });

    it('lookups by an id or owner holding NUL or a lone surrogate answer "unknown", not UnavailableError', async () => {
      for (const id of ['x\u0000', '\uD800']) {
        expect(await store.readChain(id)).toBeNull();
        expect(await store.listByOwner(id)).toEqual([]);
        expect(await store.revoke([id], NOW)).toEqual([]);
      }
    });
  });
});
