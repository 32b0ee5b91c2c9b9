/**
 * The lean chain read of PostgresTokenStore against PostgreSQL: a chain the
 * store has read before is read again as row versions and `revoked_at` only,
 * and that never changes an answer. Every check compares with a store that
 * remembers nothing (`recordCacheSize: 0`), the full read as it always was.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { ValidationError } from '../../src/errors';
import { PostgresTokenStore } from '../../src/stores/postgres';
import type { TokenRecord } from '../../src/stores';
import { DAY_MS as DAY, NOW } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { namedRecord } from '../support/record';

const TABLE = tableName('svc_tokens_lean');
const APP = `svc_auth_lean_${RUN}`;
const withDb = describeWithDb('PostgresTokenStore lean reads', 'PostgreSQL lean read tests', 'test/stores/postgres-lean.test.ts');

const rec = namedRecord;

it('recordCacheSize is checked when the store is built', () => {
  const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
  for (const bad of [-1, 1.5, '10', 1_000_001, Number.NaN]) {
    try {
      new PostgresTokenStore({ pool, recordCacheSize: bad as number });
      expect.fail(`accepted ${String(bad)}`);
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]?.pathText).toBe('recordCacheSize');
    }
  }
  expect(() => new PostgresTokenStore({ pool, recordCacheSize: 0 })).not.toThrow();
  void pool.end();
});

withDb('PostgresTokenStore lean reads against PostgreSQL', () => {
  let pool: pg.Pool;
  let admin: pg.Pool;
  let store: PostgresTokenStore;
  let plain: PostgresTokenStore;
  /** The statements `pool`'s clients sent, in order. */
  const sent: string[] = [];

  beforeAll(async () => {
    pool = newPool(APP);
    admin = newPool(APP, { max: 2 });
    const patched = new WeakSet<pg.PoolClient>();
    pool.on('acquire', (client) => {
      if (patched.has(client)) return;
      patched.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const cfg = args[0];
        sent.push(typeof cfg === 'string' ? cfg : String((cfg as { text?: unknown }).text));
        return query(...args);
      };
    });
    store = new PostgresTokenStore({ pool, table: TABLE });
    plain = new PostgresTokenStore({ pool: admin, table: TABLE, recordCacheSize: 0 });
    await store.migrate();
  });

  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await Promise.all([pool.end(), admin.end()]);
  });

  /** Read through the remembering store and the plain one: the answers must be equal. */
  async function agree(id: string): Promise<TokenRecord[] | null> {
    const [lean, full] = await Promise.all([store.readChain(id), plain.readChain(id)]);
    expect(lean).toEqual(full);
    return lean;
  }

  it('a chain read before is read again with one lean statement, no recursion, and the same answer', async () => {
    const a = rec();
    const b = rec({ parentId: a.id, scopes: [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/**'] }] });
    for (const r of [a, b]) expect(await store.insert(r, NOW)).toBe('ok');
    expect(await agree(b.id)).toEqual([b, a]);
    sent.length = 0;
    expect(await agree(b.id)).toEqual([b, a]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toMatch(/RECURSIVE/);
    expect(sent[0]).toMatch(/row_version, x\.revoked_at/);
    // A record alone takes the single-row probe.
    await agree(a.id);
    sent.length = 0;
    await agree(a.id);
    expect(sent).toEqual([expect.stringMatching(/WHERE id = \$1$/)]);
  });

  it('T5: a revoke committed through another pool is seen by the very next read', async () => {
    const a = rec();
    const b = rec({ parentId: a.id });
    for (const r of [a, b]) expect(await store.insert(r, NOW)).toBe('ok');
    await agree(b.id);
    expect(await plain.revoke([a.id], new Date(NOW.getTime() + 1000))).toEqual(expect.arrayContaining([a.id, b.id]));
    const chain = await agree(b.id);
    expect(chain?.map((r) => r.revokedAt?.getTime())).toEqual([NOW.getTime() + 1000, NOW.getTime() + 1000]);
  });

  it('a last-used time written by another server is seen (the row version moved)', async () => {
    const a = rec();
    expect(await store.insert(a, NOW)).toBe('ok');
    await agree(a.id);
    await plain.touch([a.id], new Date(NOW.getTime() + 5000));
    expect((await agree(a.id))?.[0]?.lastUsedAt?.getTime()).toBe(NOW.getTime() + 5000);
  });

  it('rows edited by hand (scopes, expiry, parent link) are read in full again', async () => {
    const a = rec();
    const p = rec();
    const b = rec({ parentId: a.id, scopes: [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }] });
    for (const r of [a, p, b]) expect(await store.insert(r, NOW)).toBe('ok');
    await agree(b.id);
    await admin.query(`UPDATE ${TABLE} SET scopes = $2::jsonb, expires_at = $3 WHERE id = $1`, [
      b.id,
      JSON.stringify([{ resource: 'acme/web', permissions: ['repo:read'] }]),
      new Date(NOW.getTime() + DAY),
    ]);
    const edited = await agree(b.id);
    expect(edited?.[0]?.scopes).toEqual([{ resource: 'acme/web', permissions: ['repo:read'] }]);
    expect(edited?.[0]?.expiresAt.getTime()).toBe(NOW.getTime() + DAY);
    await admin.query(`UPDATE ${TABLE} SET parent_id = $2 WHERE id = $1`, [b.id, p.id]);
    expect((await agree(b.id))?.map((r) => r.id)).toEqual([b.id, p.id]);
  });

  it('a deleted parent or record gives what the full read gives', async () => {
    const a = rec();
    const b = rec({ parentId: a.id });
    for (const r of [a, b]) expect(await store.insert(r, NOW)).toBe('ok');
    await agree(b.id);
    await admin.query(`DELETE FROM ${TABLE} WHERE id = $1`, [a.id]);
    expect((await agree(b.id))?.map((r) => r.id)).toEqual([b.id]);
    await admin.query(`DELETE FROM ${TABLE} WHERE id = $1`, [b.id]);
    expect(await agree(b.id)).toBeNull();
  });

  it('a row made malformed by hand after it was remembered fails closed', async () => {
    const a = rec();
    expect(await store.insert(a, NOW)).toBe('ok');
    await agree(a.id);
    await admin.query(`UPDATE ${TABLE} SET kind = 'superuser' WHERE id = $1`, [a.id]);
    await expect(store.readChain(a.id)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('a malformed row in a coalesced batch fails every caller of its id, and only them', async () => {
    const good = rec();
    const bad = rec();
    for (const r of [good, bad]) expect(await store.insert(r, NOW)).toBe('ok');
    await admin.query(`UPDATE ${TABLE} SET kind = 'superuser' WHERE id = $1`, [bad.id]);
    const [a, b1, b2] = await Promise.allSettled([store.readChain(good.id), store.readChain(bad.id), store.readChain(bad.id)]);
    expect(a.status === 'fulfilled' && a.value).toEqual([good]);
    for (const r of [b1, b2]) expect(r.status === 'rejected' && (r.reason as { code?: string }).code).toBe('unavailable');
  });

  it('one batch of known, new, changed and unknown ids: each caller gets the full read`s answer', async () => {
    const known = [rec(), rec(), rec()];
    for (const r of known) expect(await store.insert(r, NOW)).toBe('ok');
    await Promise.all(known.map((r) => store.readChain(r.id)));
    const fresh = rec({ parentId: known[0]?.id ?? null });
    expect(await store.insert(fresh, NOW)).toBe('ok');
    await plain.revoke([known[1]?.id as string], new Date(NOW.getTime() + 1));
    const ids = [...known.map((r) => r.id), fresh.id, `missing-${RUN}`];
    sent.length = 0;
    const [lean, full] = await Promise.all([
      Promise.all(ids.map((id) => store.readChain(id))),
      Promise.all(ids.map((id) => plain.readChain(id))),
    ]);
    expect(lean).toEqual(full);
    // The lean statement for what was known, then one full read for the rest.
    expect(sent).toHaveLength(2);
  });

  it('property: under random revokes, touches, hand edits and deletes, every read equals the full read', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            op: fc.constantFrom('read', 'revoke', 'touch', 'edit', 'delete'),
            at: fc.integer({ min: 0, max: 5 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (ops) => {
          // A fresh chain of six records per run: r0 <- r1 <- ... <- r5.
          const chain: TokenRecord[] = [];
          for (let i = 0; i < 6; i++) {
            const r = rec({ parentId: chain[i - 1]?.id ?? null });
            expect(await store.insert(r, NOW)).toBe('ok');
            chain.push(r);
          }
          const id = (k: number): string => (chain[k] as TokenRecord).id;
          let t = NOW.getTime();
          for (const { op, at } of ops) {
            t += 1000;
            if (op === 'read') await agree(id(at));
            else if (op === 'revoke') await plain.revoke([id(at)], new Date(t));
            else if (op === 'touch') await plain.touch([id(at)], new Date(t));
            else if (op === 'edit') await admin.query(`UPDATE ${TABLE} SET description = $2 WHERE id = $1`, [id(at), `edited ${t}`]);
            else await admin.query(`DELETE FROM ${TABLE} WHERE id = $1`, [id(at)]);
            await agree(id(5));
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
