/**
 * The lean read sent the short way (a pg submittable: prepared once per connection, then Bind,
 * Execute and Sync, values as text) against PostgreSQL: it answers as `client.query` does, through
 * time zones and timestamps to the microsecond; anything that is not pg's own client in text mode,
 * or an unnamed statement, goes the ordinary way; a clashing statement name, a read timeout and a
 * failing statement fail closed, and the connection serves the next read.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { leanRows } from '../../src/stores/postgres/tokens/lean-rows';
import { freshOf } from '../../src/stores/postgres/tokens/known';
import { buildSql, parseTableName } from '../../src/stores/postgres/tokens/sql';
import { NOW } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { namedRecord } from '../support/record';

const TABLE = tableName('svc_tokens_lean_rows');
const APP = `svc_auth_lean_rows_${RUN}`;
const withDb = describeWithDb('lean rows', 'PostgreSQL lean-rows tests', 'test/stores/postgres-lean-rows.test.ts');
const sql = buildSql(parseTableName(TABLE));
const lean = (id: string, name = `svc_test_lean_${RUN}`) => ({ name, text: sql.readVersion, values: [id] as unknown[] });

withDb('the lean read the short way, against PostgreSQL', () => {
  let pool: pg.Pool;
  let store: PostgresTokenStore;
  const ids: string[] = [];

  beforeAll(async () => {
    pool = newPool(APP);
    store = new PostgresTokenStore({ pool, table: TABLE });
    await store.migrate();
    for (let i = 0; i < 3; i++) {
      const r = namedRecord();
      expect(await store.insert(r, NOW)).toBe('ok');
      ids.push(r.id);
    }
  });

  afterAll(async () => {
    const sides = ['org_policies', 'governance', 'dpop_proofs', 'service_accounts', 'machine_clients'].map((s) => `${TABLE}_${s}`);
    await pool.query(`DROP TABLE IF EXISTS ${[TABLE, ...sides].join(', ')}`);
    await pool.end();
  });

  it('property: the short way answers as client.query, through session time zones and revocations to the microsecond', async () => {
    const zones = ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham', 'Europe/Berlin'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...zones),
        fc.option(fc.integer({ min: -2_000_000_000_000_000, max: 4_000_000_000_000_000 }), { nil: null }),
        fc.constantFrom(...ids, 'tok_missing'),
        async (zone, revokedUs, id) => {
          const client = await pool.connect();
          try {
            await client.query(`SET TIME ZONE '${zone}'`);
            // Microseconds since 1970, as PostgreSQL keeps them (to_timestamp takes seconds as a double: exact here).
            await client.query(
              `UPDATE ${TABLE} SET revoked_at = CASE WHEN $2::bigint IS NULL THEN NULL ELSE 'epoch'::timestamptz + $2::bigint * interval '1 microsecond' END WHERE id = $1`,
              [id, revokedUs],
            );
            const query = client.query.bind(client) as (q: unknown) => unknown;
            let submitted = false;
            Object.assign(client, { query: (q: { submit?: unknown }) => ((submitted ||= typeof q.submit === 'function'), query(q)) });
            const short = await leanRows(client, lean(id), [2]);
            Object.assign(client, { query });
            expect(submitted, 'the short way was taken').toBe(true);
            const plain = (await client.query({ ...lean(id, `svc_test_plain_${RUN}`), rowMode: 'array' })).rows as unknown[][];
            expect(freshOf(short)).toEqual(freshOf(plain));
            expect(short.length).toBe(id === 'tok_missing' ? 0 : 1);
            // The short way gives PostgreSQL's text; it parses to the same instant.
            if (short.length === 1 && revokedUs !== null) expect(freshOf(short).get(id)?.revokedAt).toBe(Math.floor(revokedUs / 1000));
          } finally {
            await client.query(`SET TIME ZONE 'UTC'`);
            client.release();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('anything but pg’s own client in text mode, or an unnamed statement, goes the ordinary way', async () => {
    const calls: unknown[] = [];
    const fake = { query: (q: unknown) => (calls.push(q), Promise.resolve({ rows: [[ids[0], '1', null, '0']] })) };
    const rows = await leanRows(fake as never, lean(ids[0] as string));
    expect(rows).toEqual([[ids[0], '1', null, '0']]);
    expect(calls).toHaveLength(1);
    expect((calls[0] as { rowMode?: string }).rowMode).toBe('array');
    // Binary mode: pg would refuse a submittable; the ordinary way parses values itself.
    const binary = newPool(`${APP}_bin`, { binary: true } as pg.PoolConfig);
    try {
      const client = await binary.connect();
      try {
        const got = await leanRows(client, lean(ids[0] as string), [2]);
        const ordinary = await client.query({ ...lean(ids[0] as string, `svc_test_bin_${RUN}`), rowMode: 'array' });
        expect(got).toEqual(ordinary.rows);
      } finally {
        client.release();
      }
    } finally {
      await binary.end();
    }
    const client = await pool.connect();
    try {
      const { name: _name, ...unnamed } = lean(ids[1] as string);
      expect(freshOf(await leanRows(client, unnamed)).has(ids[1] as string)).toBe(true);
    } finally {
      client.release();
    }
  });

  it('statement name clash: a name prepared with other text on the connection fails the read, and the connection serves the next one', async () => {
    const client = await pool.connect();
    try {
      const name = `svc_test_clash_${RUN}`;
      await client.query({ name, text: 'SELECT $1::text AS id, $1::text, NULL::timestamptz, 0', values: ['x'] });
      await expect(leanRows(client, lean(ids[0] as string, name))).rejects.toThrow(/prepared with other text/);
      expect(freshOf(await leanRows(client, lean(ids[0] as string))).has(ids[0] as string)).toBe(true);
    } finally {
      client.release();
    }
  });

  it('a failing statement rejects with the database error, and a read timeout (query_timeout) rejects once; the connection goes on', async () => {
    const client = await pool.connect();
    try {
      const broken = { name: `svc_test_broken_${RUN}`, text: 'SELECT $1::int / 0', values: ['1'] };
      await expect(leanRows(client, broken)).rejects.toMatchObject({ code: '22012' });
      // Prepared once despite the failure of its run: the next run errs the same way, not on the name.
      await expect(leanRows(client, broken)).rejects.toMatchObject({ code: '22012' });
      expect(freshOf(await leanRows(client, lean(ids[2] as string))).has(ids[2] as string)).toBe(true);
    } finally {
      client.release();
    }
    const slow = newPool(`${APP}_slow`, { query_timeout: 100 });
    try {
      const c = await slow.connect();
      try {
        const sleepy = {
          name: `svc_test_sleepy_${RUN}`,
          text: 'SELECT $1::text, pg_sleep(0.5)::text, NULL::timestamptz, 0',
          values: ['x'],
        };
        const settled: unknown[] = [];
        const run = leanRows(c, sleepy).then(
          (v) => settled.push(v),
          (e: unknown) => settled.push(e),
        );
        await run;
        await new Promise((r) => setTimeout(r, 700));
        expect(settled).toHaveLength(1);
        expect(String(settled[0])).toMatch(/timeout/i);
      } finally {
        c.release(true);
      }
    } finally {
      await slow.end();
    }
  });

  it('the store reads a known chain the short way: one statement, and the answer of a store that remembers nothing', async () => {
    const plain = new PostgresTokenStore({ pool, table: TABLE, recordCacheSize: 0 });
    await pool.query(`UPDATE ${TABLE} SET revoked_at = NULL`);
    for (const id of ids) {
      await store.readChain(id);
      expect(await store.readChain(id)).toEqual(await plain.readChain(id));
    }
    await pool.query(`UPDATE ${TABLE} SET revoked_at = now() WHERE id = $1`, [ids[0]]);
    expect(await store.readChain(ids[0] as string)).toEqual(await plain.readChain(ids[0] as string));
  });
});
