/**
 * The request path's shared reads of PostgresTokenStore (src/stores/views.ts):
 * frozen views made once per remembered record, a revocation or any change of
 * a row seen on the very next read, and the public readChain still copying.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { SHARED_READ, type SharedReadSource, type TokenRecord } from '../../src/stores';
import { LATER, NOW } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { namedRecord as rec } from '../support/record';

const TABLE = tableName('svc_tokens_views');
const withDb = describeWithDb('PostgresTokenStore shared reads', 'PostgreSQL shared read tests', 'test/stores/postgres-views.test.ts');

withDb('PostgresTokenStore shared reads against PostgreSQL', () => {
  let pool: pg.Pool;
  let store: PostgresTokenStore;
  const shared = (id: string): Promise<TokenRecord[] | null> | undefined => (store as SharedReadSource)[SHARED_READ]?.(id, 5000);

  beforeAll(async () => {
    pool = newPool(`svc_auth_views_${RUN}`);
    store = new PostgresTokenStore({ pool, table: TABLE });
    await store.migrate();
  });

  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await pool.end();
  });

  it('hands out the same frozen views while rows are unchanged; readChain still copies', async () => {
    const a = rec();
    const b = rec({ parentId: a.id });
    for (const r of [a, b]) expect(await store.insert(r, NOW)).toBe('ok');
    await shared(b.id); // the full read: the store now remembers both rows
    const first = await shared(b.id);
    const again = await shared(b.id);
    expect(first?.map((r) => r.id)).toEqual([b.id, a.id]);
    expect(again?.[0]).toBe(first?.[0]);
    expect(again?.[1]).toBe(first?.[1]);
    expect(Object.isFrozen(again?.[0])).toBe(true);
    const copy = await store.readChain(b.id);
    expect(copy).toEqual(again);
    expect(copy?.[0]).not.toBe(again?.[0]);
    expect(await shared('no-such-id')).toBeNull();
  });

  it('a revocation, or a row edited by hand, is seen on the very next shared read', async () => {
    const a = rec();
    const b = rec({ parentId: a.id });
    for (const r of [a, b]) expect(await store.insert(r, NOW)).toBe('ok');
    const before = await shared(b.id);
    expect(before?.[1]?.revokedAt).toBeNull();
    await store.revoke([a.id], LATER);
    const after = await shared(b.id);
    expect(after?.[0]?.revokedAt?.getTime()).toBe(LATER.getTime());
    expect(after?.[1]?.revokedAt?.getTime()).toBe(LATER.getTime());
    await pool.query(`UPDATE ${TABLE} SET name = 'edited' WHERE id = $1`, [b.id]);
    expect((await shared(b.id))?.[0]?.name).toBe('edited');
  });

  it('declines when readChain is replaced on the instance', async () => {
    const other = new PostgresTokenStore({ pool, table: TABLE });
    other.readChain = () => Promise.resolve(null);
    expect((other as SharedReadSource)[SHARED_READ]?.('x', 5000)).toBeUndefined();
  });

  it("declines a caller whose deadline is shorter than the store's own (the caller then keeps its timer)", async () => {
    const quick = new PostgresTokenStore({ pool, table: TABLE, statementTimeoutMs: 2000 });
    expect((quick as SharedReadSource)[SHARED_READ]?.('x', 1999)).toBeUndefined();
    expect(await (quick as SharedReadSource)[SHARED_READ]?.('x', 2000)).toBeNull();
  });
});
