/**
 * Service accounts in PostgresTokenStore against PostgreSQL: a database that
 * the previous release migrated gains the two side tables in place and keeps
 * its tokens; creates and client ids race across two pools as across two
 * servers; text PostgreSQL cannot hold is refused before any statement. An
 * account read that rides on a chain read's statement answers as one read alone.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { ConflictError, UnavailableError, ValidationError } from '../../src/errors';
import { PostgresTokenStore } from '../../src/stores/postgres';
import type { MachineClientRecord, ServiceAccountRecord } from '../../src/stores';
import { NOW } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { namedRecord as rec } from '../support/record';

const TABLE = tableName('svc_tokens_sa');
const OLD = tableName('svc_tokens_sa', 'old');
const APP = `svc_auth_sa_${RUN}`;
const withDb = describeWithDb(
  'PostgresTokenStore service accounts',
  'PostgreSQL service account tests',
  'test/stores/postgres-service-accounts.test.ts',
);

const account = (org: string, name: string, over: Partial<ServiceAccountRecord> = {}): ServiceAccountRecord => ({
  org,
  name,
  role: 'editor',
  description: null,
  disabled: false,
  clients: [],
  createdBy: 'alice',
  createdAt: NOW,
  updatedBy: 'alice',
  updatedAt: NOW,
  version: 1,
  ...over,
});
const client = (clientId: string): MachineClientRecord => ({
  clientId,
  method: 'client_secret_basic',
  jwks: null,
  secretHash: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
  createdBy: 'alice',
  createdAt: NOW,
  revokedAt: null,
});

withDb('PostgresTokenStore service accounts against PostgreSQL', () => {
  let a: pg.Pool;
  let b: pg.Pool;
  let storeA: PostgresTokenStore;
  let storeB: PostgresTokenStore;

  beforeAll(async () => {
    a = newPool(APP);
    b = newPool(APP);
    storeA = new PostgresTokenStore({ pool: a, table: TABLE });
    storeB = new PostgresTokenStore({ pool: b, table: TABLE });
    await storeA.migrate();
  });

  afterAll(async () => {
    for (const t of [TABLE, OLD]) {
      await a.query(
        `DROP TABLE IF EXISTS ${t}, ${t}_org_policies, ${t}_governance, ${t}_dpop_proofs, ${t}_service_accounts, ${t}_machine_clients`,
      );
    }
    await Promise.all([a.end(), b.end()]);
  });

  it('in-place upgrade: a database the previous release migrated (no account tables) keeps its tokens and gains service accounts', async () => {
    const fresh = new PostgresTokenStore({ pool: a, table: OLD });
    await fresh.migrate();
    // What the previous release left: everything but the two account tables.
    await a.query(`DROP TABLE ${OLD}_service_accounts, ${OLD}_machine_clients`);
    const token = rec();
    expect(await fresh.insert(token, NOW)).toBe('ok');
    const store = new PostgresTokenStore({ pool: a, table: OLD });
    await expect(store.readServiceAccount('acme', 'ci-bot'), 'before migrate: fails closed').rejects.toBeInstanceOf(UnavailableError);
    await store.migrate();
    await store.migrate(); // again: nothing changes
    expect(await store.readChain(token.id)).toEqual([token]);
    expect(await store.readServiceAccount('acme', 'ci-bot')).toBeNull();
    expect(await store.putServiceAccount(account('acme', 'ci-bot', { clients: [client(`sa~acme~ci-bot~${RUN}o`)] }))).toBe(true);
    expect((await store.readServiceAccount('acme', 'ci-bot'))?.clients.map((c) => c.clientId)).toEqual([`sa~acme~ci-bot~${RUN}o`]);
  });

  it('race: two servers creating one account at once: exactly one is stored', async () => {
    const org = `race${RUN}`;
    const got = await Promise.all([
      storeA.putServiceAccount(account(org, 'ci-bot', { role: 'viewer' })),
      storeB.putServiceAccount(account(org, 'ci-bot', { role: 'admin' })),
    ]);
    expect(got.filter(Boolean)).toHaveLength(1);
    expect((await storeB.readServiceAccount(org, 'ci-bot'))?.role).toBe(got[0] ? 'viewer' : 'admin');
  });

  it('client id collision across servers: two accounts claiming one client id at once: one stored, the other a ConflictError', async () => {
    const org = `clash${RUN}`;
    const id = `sa~${org}~x~${RUN}`;
    const got = await Promise.allSettled([
      storeA.putServiceAccount(account(org, 'one', { clients: [client(id)] })),
      storeB.putServiceAccount(account(org, 'two', { clients: [client(id)] })),
    ]);
    expect(got.filter((r) => r.status === 'fulfilled' && r.value === true)).toHaveLength(1);
    const refused = got.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConflictError);
    const stored = (await storeA.listServiceAccounts(org)).map((x) => x.name);
    expect(stored).toHaveLength(1);
    // Released when the holder drops it: then another account may take it.
    const holder = stored[0] as string;
    expect(await storeA.putServiceAccount(account(org, holder, { version: 2 }))).toBe(true);
    expect(await storeB.putServiceAccount(account(org, 'three', { clients: [client(id)] }))).toBe(true);
  });

  it('hostile text: NUL and lone surrogates are a ValidationError, nothing written; odd lookups answer null', async () => {
    const org = `nul${RUN}`;
    await expect(storeA.putServiceAccount(account(org, 'ci-bot', { description: 'a\u0000b' }))).rejects.toBeInstanceOf(ValidationError);
    await expect(storeA.putServiceAccount(account(org, 'ci-bot', { updatedBy: 'x\uD800' }))).rejects.toBeInstanceOf(ValidationError);
    expect(await storeA.readServiceAccount(org, 'ci-bot')).toBeNull();
    expect(await storeA.readServiceAccount('a\u0000', 'b')).toBeNull();
    expect(await storeA.readServiceAccount(5 as never, null as never)).toBeNull();
    await expect(storeA.listServiceAccounts(undefined as never)).rejects.toBeInstanceOf(ValidationError);
  });

  it('a hand-edited record fails closed: UnavailableError, never a half-read account', async () => {
    const org = `edit${RUN}`;
    await storeA.putServiceAccount(account(org, 'ci-bot'));
    await a.query(`UPDATE ${TABLE}_service_accounts SET record = jsonb_set(record, '{role}', '"root"') WHERE org = $1`, [org]);
    await expect(storeB.readServiceAccount(org, 'ci-bot')).rejects.toBeInstanceOf(UnavailableError);
    await expect(storeB.listServiceAccounts(org)).rejects.toBeInstanceOf(UnavailableError);
  });

  /** What a read answered, as data: the record, null, or the error's class. */
  const outcome = (p: Promise<unknown>): Promise<unknown> =>
    p.then(
      (v) => ({ ok: v }),
      (e: unknown) => ({ err: (e as Error).constructor.name }),
    );

  it('property: an account read riding on a chain read (lean or full, one statement) answers as the account read alone', async () => {
    const org = `ride${RUN}`;
    // Looked up, not all stored: a missing one, and names no account can have (quotes, JSON, non-ASCII).
    const names = ['ci-bot', 'paused', '9lives', 'gone', 'broken', "o'neil", '"]', 'édith'];
    for (const name of names.slice(0, 3)) await storeA.putServiceAccount(account(org, name, { disabled: name === 'paused' }));
    await storeA.putServiceAccount(account(org, 'broken'));
    await a.query(
      `UPDATE ${TABLE}_service_accounts SET record = jsonb_set(record, '{role}', '"root"') WHERE org = $1 AND name = 'broken'`,
      [org],
    );
    const tokens = [rec(), rec(), rec()];
    for (const t of tokens) expect(await storeA.insert(t, NOW)).toBe('ok');
    const ids = [...tokens.map((t) => t.id), 'tok_unknown'];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(fc.constantFrom(...ids), { maxLength: 3 }),
        fc.boolean(),
        async (wanted, chains, cold) => {
          // A fresh store knows no record (full read); storeB has read them before (lean read).
          const store = cold ? new PostgresTokenStore({ pool: b, table: TABLE }) : storeB;
          const together = await Promise.all([
            ...wanted.map((n) => outcome(store.readServiceAccount(org, n))),
            ...chains.map((id) => outcome(store.readChain(id))),
          ]);
          const alone: unknown[] = [];
          for (const n of wanted) alone.push(await outcome(new PostgresTokenStore({ pool: b, table: TABLE }).readServiceAccount(org, n)));
          for (const id of chains) alone.push(await outcome(storeA.readChain(id)));
          expect(together).toEqual(alone);
        },
      ),
      { numRuns: 40 },
    );
  });
});
