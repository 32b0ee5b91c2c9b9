/**
 * Issue 18, item 9, against real PostgreSQL: a token's scopes edited by hand
 * (`UPDATE … SET scopes = …`) decide the next request of a running process,
 * exactly as they decide in a process started afterwards. Before, the compiled
 * layers and grants were keyed by token id alone and kept the old scopes until
 * a restart.
 */
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Scope } from '../../src/core/scopes';

import type { Auth } from '../../src/service';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { PERMISSIONS, type Permission } from '../../src/core/vocabulary';
import { testAuth } from '../support/auth';
import { Clock } from '../support/clock';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';

/** A scope entry that is both a `Scope` (as stored) and a `ScopeEntry` (as `create` takes it). */
type Entry = { resource?: string; permissions: Permission[]; allowedMatches?: string[] };

const TABLE = tableName('svc_tokens_test', 'handedit');
const APP = `svc_auth_handedit_${RUN}`;
const withDb = describeWithDb('hand-edited scopes on PostgreSQL', 'PostgreSQL hand-edit tests', 'test/service/postgres-hand-edit.test.ts');

const READ_WRITE: Entry[] = [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }];
const READ: Entry[] = [{ resource: 'acme/web', permissions: ['repo:read'] }];

withDb('hand-edited scopes on PostgreSQL (issue 18, item 9)', () => {
  const pools: pg.Pool[] = [];
  let admin: pg.Pool;
  const clock = new Clock();
  let running: Auth;

  /** A process: its own pool and store (remembering rows, as in production) and its own caches. */
  async function processOn(extra: { recordCacheSize?: number; cacheless?: boolean } = {}): Promise<Auth> {
    const pool = newPool(APP, { max: 4 });
    pools.push(pool);
    const tokens = new PostgresTokenStore({
      pool,
      table: TABLE,
      ...(extra.recordCacheSize === undefined ? {} : { recordCacheSize: extra.recordCacheSize }),
    });
    const caches = extra.cacheless === true ? { cache: { layers: 0, grants: 0, signatures: 0 } } : {};
    return (await testAuth({ tokens, clock, ...caches })).auth;
  }

  beforeAll(async () => {
    admin = newPool(APP, { max: 2 });
    pools.push(admin);
    const pool = newPool(APP, { max: 4 });
    pools.push(pool);
    const tokens = new PostgresTokenStore({ pool, table: TABLE });
    await tokens.migrate();
    running = (await testAuth({ tokens, clock })).auth;
  });

  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await Promise.all(pools.map((p) => p.end()));
  });

  const edit = (id: string, scopes: Scope[] | null) =>
    admin.query(`UPDATE ${TABLE} SET scopes = $2::jsonb WHERE id = $1`, [id, scopes === null ? null : JSON.stringify(scopes)]);

  async function decide(auth: Auth, token: string, permission: string) {
    return auth.authorize(await auth.authenticate(token), 'acme/web', permission);
  }

  it('UPDATE … SET scopes narrowing a token: the running process denies the next request, as a fresh process does', async () => {
    const me = await running.authenticate(await running.issueSession('alice'));
    const { token, info } = await running.client(me).token.create({ name: 'narrowed', scopes: READ_WRITE });
    // Warm every cache: signature, store rows, layers, grants.
    for (let i = 0; i < 3; i++) expect(await decide(running, token, 'repo:write')).toEqual({ allowed: true });
    await edit(info.id, READ);
    expect(await decide(running, token, 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    expect(await decide(running, token, 'repo:read')).toEqual({ allowed: true });
    expect(await decide(await processOn(), token, 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    // Widened back by hand: allowed again on the next request.
    await edit(info.id, READ_WRITE);
    expect(await decide(running, token, 'repo:write')).toEqual({ allowed: true });
  });

  it("an ancestor's scopes narrowed by hand narrow its descendant on the next request", async () => {
    const me = await running.authenticate(await running.issueSession('alice'));
    const parent = await running.client(me).token.create({ name: 'hand-parent', scopes: READ_WRITE });
    const child = await running.client(await running.authenticate(parent.token)).token.create({ name: 'hand-child' });
    expect(await decide(running, child.token, 'repo:write')).toEqual({ allowed: true });
    await edit(parent.info.id, READ);
    expect(await decide(running, child.token, 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
  });

  it('property: under random hand edits of a parent and a child, the running process decides as a process that caches nothing', async () => {
    const pool: (Entry[] | null)[] = [
      null,
      READ,
      READ_WRITE,
      [{ resource: 'acme', permissions: ['repo:read', 'org:read'] }],
      [{ resource: 'acme/web', permissions: ['repo:write'], allowedMatches: ['Doc/**'] }],
      [],
    ];
    const fresh = await processOn({ recordCacheSize: 0, cacheless: true });
    const me = await running.authenticate(await running.issueSession('alice'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ child: fc.boolean(), scopes: fc.integer({ min: 0, max: pool.length - 1 }) }), { minLength: 1, maxLength: 5 }),
        async (steps) => {
          n++;
          const parent = await running.client(me).token.create({ name: `prop-parent-${n}`, scopes: READ_WRITE });
          const child = await running.client(await running.authenticate(parent.token)).token.create({ name: `prop-child-${n}` });
          for (const step of steps) {
            await edit(step.child ? child.info.id : parent.info.id, pool[step.scopes] ?? null);
            for (const token of [parent.token, child.token]) {
              const [a, b] = [await running.authenticate(token), await fresh.authenticate(token)];
              for (const resource of ['acme/web', 'acme/api', 'acme']) {
                for (const permission of PERMISSIONS) {
                  expect(running.authorize(a, resource, permission)).toEqual(fresh.authorize(b, resource, permission));
                }
                expect(running.authorize(a, resource, 'repo:write', 'Doc/x')).toEqual(fresh.authorize(b, resource, 'repo:write', 'Doc/x'));
              }
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
