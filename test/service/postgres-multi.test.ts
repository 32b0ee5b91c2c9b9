/**
 * Two servers (two `createAuth` instances, two pools) sharing one PostgreSQL
 * table and one key ring must agree on every token at once: creation,
 * revocation and its cascade (T5, T6, T7).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { AuthenticationError, ConflictError } from '../../src/errors';
import type { Auth } from '../../src/service';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { testAuth } from '../support/auth';
import { Clock } from '../support/clock';
import { rejection } from '../support/errors';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';

const TABLE = tableName('svc_tokens_test', 'multi');
const APP = `svc_auth_multi_${RUN}`;
const withDb = describeWithDb(
  'createAuth on PostgreSQL, two instances',
  'PostgreSQL multi-instance tests',
  'test/service/postgres-multi.test.ts',
);

withDb('createAuth on PostgreSQL, two instances', () => {
  const pools: pg.Pool[] = [];
  const clock = new Clock();
  let a: Auth;
  let b: Auth;

  beforeAll(async () => {
    const make = async (): Promise<Auth> => {
      const pool = newPool(APP, { max: 8 });
      pools.push(pool);
      const tokens = new PostgresTokenStore({ pool, table: TABLE });
      await tokens.migrate();
      return (await testAuth({ tokens, clock })).auth;
    };
    [a, b] = await Promise.all([make(), make()]);
  });

  afterAll(async () => {
    await pools[0]?.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await Promise.all(pools.map((p) => p.end()));
  });

  async function reason(p: Promise<unknown>): Promise<string | undefined> {
    const err = await rejection(p);
    expect(err).toBeInstanceOf(AuthenticationError);
    return (err as AuthenticationError).reason;
  }

  it('T5: a token created on one instance authenticates and lists on the other', async () => {
    const session = await a.issueSession('alice');
    const onA = await a.authenticate(session);
    const { token, info } = await a.client(onA).token.create({
      name: 'shared',
      scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }],
    });
    const onB = await b.authenticate(token);
    expect(onB.tokenId).toBe(info.id);
    expect(b.authorize(onB, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(b.authorize(onB, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    const listed = await b.client(await b.authenticate(session)).token.list();
    expect(listed.map((t) => t.name)).toContain('shared');
  });

  it('T6: revoked on one instance, the token and its descendants are refused by the other on the next request', async () => {
    const session = await a.issueSession('alice');
    const sa = await a.authenticate(session);
    const parent = await a.client(sa).token.create({ name: 'cascade-parent' });
    // The child is made on B, by the parent PAT itself.
    const child = await b.client(await b.authenticate(parent.token)).token.create({ name: 'cascade-child' });
    const grandchild = await a.client(await a.authenticate(child.token)).token.create({ name: 'cascade-grandchild' });
    // Warm both verified-signature caches: revocation must not depend on them.
    for (const t of [parent.token, child.token, grandchild.token]) {
      await a.authenticate(t);
      await b.authenticate(t);
    }

    const revoked = await a.client(sa).token.revoke('cascade-parent');
    expect(revoked.status).toBe('revoked');

    for (const t of [parent.token, child.token, grandchild.token]) {
      expect(await reason(b.authenticate(t))).toBe('revoked');
      expect(await reason(a.authenticate(t))).toBe('revoked');
    }
    const view = await b.client(await b.authenticate(session)).token.get('cascade-grandchild');
    expect(view.status).toBe('revoked');
  });

  it('T3: auth.revokeToken on one instance stops a component token on the other', async () => {
    const component = await b.issueComponentToken('alice', { scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const p = await a.authenticate(component);
    await b.revokeToken(p.tokenId as string);
    expect(await reason(a.authenticate(component))).toBe('revoked');
  });

  it('T7 race: 30 parallel creates of one name across instances, exactly one wins, the rest ConflictError', async () => {
    const session = await a.issueSession('alice');
    const [sa, sb] = await Promise.all([a.authenticate(session), b.authenticate(session)]);
    const settled = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a.client(sa) : b.client(sb)).token.create({ name: 'contested' })),
    );
    const won = settled.filter((s) => s.status === 'fulfilled');
    const lost = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(29);
    for (const l of lost) expect(l.reason).toBeInstanceOf(ConflictError);
    const active = (await a.client(sa).token.list()).filter((t) => t.name === 'contested' && t.status === 'active');
    expect(active).toHaveLength(1);
  });

  it('T7: after revoking, the name can be reused from the other instance', async () => {
    const session = await a.issueSession('alice');
    const sa = await a.authenticate(session);
    const first = await a.client(sa).token.create({ name: 'rotate-me' });
    await a.client(sa).token.revoke('rotate-me');
    const second = await b.client(await b.authenticate(session)).token.create({ name: 'rotate-me' });
    expect(second.info.id).not.toBe(first.info.id);
    expect(await reason(b.authenticate(first.token))).toBe('revoked');
    expect((await a.authenticate(second.token)).tokenName).toBe('rotate-me');
  });

  it('T5 with coalesced reads: 20 times, a revoke committed on B is seen by the next authenticate on A while A keeps reads of that token on the wire', async () => {
    const session = await a.issueSession('alice');
    const sa = await a.authenticate(session);
    for (let i = 0; i < 20; i++) {
      const { token } = await a
        .client(sa)
        .token.create({ name: `interleave-${i}`, scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
      await a.authenticate(token);
      let running = true;
      // Concurrent authenticates of the same token on A: batches for its id are in flight when the revoke commits.
      const load = (async () => {
        while (running) await Promise.all(Array.from({ length: 8 }, () => a.authenticate(token).catch(() => undefined)));
      })();
      try {
        await new Promise((r) => setTimeout(r, i % 4));
        const p = await b.authenticate(token);
        await b.revokeToken(p.tokenId as string);
        expect(await reason(a.authenticate(token))).toBe('revoked');
      } finally {
        running = false;
        await load;
      }
    }
  });
});
