/**
 * Key-bound tokens in PostgresTokenStore against PostgreSQL: the bound key
 * travels with the record, a table of the previous release gains the column
 * in place (its tokens stay unbound), and a hand-edited key fails closed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { UnavailableError } from '../../src/errors';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { NOW } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { namedRecord as rec } from '../support/record';

const TABLE = tableName('svc_tokens_bound');
const OLD = tableName('svc_tokens_bound', 'old');
const APP = `svc_auth_bound_${RUN}`;
const KEY = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
const withDb = describeWithDb('PostgresTokenStore bound keys', 'PostgreSQL bound key tests', 'test/stores/postgres-bound-key.test.ts');

/** The token table of the release before bound keys (with org governance's column), kept as the upgrade fixture. */
const PREVIOUS_DDL = (t: string): string[] => [
  `CREATE TABLE ${t} (
    seq bigint GENERATED ALWAYS AS IDENTITY, id text NOT NULL PRIMARY KEY, kind text NOT NULL, owner_id text NOT NULL,
    name text NOT NULL, description text, scopes jsonb, parent_id text, created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL, revoked_at timestamptz, committer_identity text, last_used_at timestamptz)`,
  `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS allowed_ips text[]`,
  `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS used_from jsonb`,
  `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS expiry_warnings integer[]`,
  `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS org_access jsonb`,
];

withDb('PostgresTokenStore bound keys against PostgreSQL', () => {
  let pool: pg.Pool;
  let store: PostgresTokenStore;

  beforeAll(async () => {
    pool = newPool(APP);
    store = new PostgresTokenStore({ pool, table: TABLE });
    await store.migrate();
  });

  afterAll(async () => {
    for (const t of [TABLE, OLD]) await pool.query(`DROP TABLE IF EXISTS ${t}, ${t}_org_policies, ${t}_governance, ${t}_dpop_proofs`);
    await pool.end();
  });

  it('the bound key is stored with the record and read back by readChain and listByOwner', async () => {
    const parent = rec({ boundKey: KEY });
    const child = rec({ parentId: parent.id, boundKey: KEY });
    for (const r of [parent, child]) expect(await store.insert(r, NOW)).toBe('ok');
    expect((await store.readChain(child.id))?.map((r) => r.boundKey)).toEqual([KEY, KEY]);
    expect((await store.listByOwner(parent.ownerId)).find((r) => r.id === parent.id)?.boundKey).toBe(KEY);
    const { rows } = await pool.query(`SELECT bound_key FROM ${TABLE} WHERE id = $1`, [child.id]);
    expect(rows[0]?.bound_key).toBe(KEY);
  });

  it('tampering: a hand-edited bound_key that is no thumbprint fails closed with UnavailableError, never reads as unbound', async () => {
    const t = rec({ boundKey: KEY });
    expect(await store.insert(t, NOW)).toBe('ok');
    await pool.query(`UPDATE ${TABLE} SET bound_key = '' WHERE id = $1`, [t.id]);
    await expect(store.readChain(t.id)).rejects.toBeInstanceOf(UnavailableError);
    await pool.query(`UPDATE ${TABLE} SET bound_key = 'not a thumbprint' WHERE id = $1`, [t.id]);
    await expect(store.readChain(t.id)).rejects.toBeInstanceOf(UnavailableError);
  });

  it('in-place upgrade: a table of the previous release gains bound_key; its tokens read unbound, new ones bind', async () => {
    for (const ddl of PREVIOUS_DDL(OLD)) await pool.query(ddl);
    const old = rec();
    await pool.query(
      `INSERT INTO ${OLD} (id, kind, owner_id, name, description, scopes, parent_id, created_at, expires_at, revoked_at, committer_identity)
       VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6, $7, NULL, NULL)`,
      [old.id, old.kind, old.ownerId, old.name, old.description, old.createdAt, old.expiresAt],
    );
    const upgraded = new PostgresTokenStore({ pool, table: OLD });
    await upgraded.migrate();
    await upgraded.migrate(); // again: nothing changes
    expect(await upgraded.readChain(old.id)).toEqual([old]);
    expect((await upgraded.readChain(old.id))?.[0]?.boundKey).toBeUndefined();
    const child = rec({ parentId: old.id, boundKey: KEY });
    expect(await upgraded.insert(child, NOW)).toBe('ok');
    expect((await upgraded.readChain(child.id))?.map((r) => r.boundKey ?? null)).toEqual([KEY, null]);
  });
});
