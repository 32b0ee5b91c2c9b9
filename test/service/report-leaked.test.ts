/**
 * `auth.reportLeaked` on the three stores (memory, file, PostgreSQL): a
 * reported token fails on its next request, its descendants too, and its
 * owner gets exactly one `token.leaked` event (never the value); everything
 * that is not an active token of this instance is only counted.
 */
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { AuthenticationError, UnavailableError, ValidationError } from '../../src/errors';
import { createAuth, type Auth, type AuthEvent } from '../../src/service';
import { MemoryTokenStore, type TokenStore } from '../../src/stores';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { generateKeyRing } from '../../src/tokens';
import { testAuth } from '../support/auth';
import { DAY_MS, type Clock } from '../support/clock';
import { rejection } from '../support/errors';
import { RUN, describeWithDb, newPool, tableName } from '../support/postgres';
import { dropStores, tokenStores } from '../support/token-stores';

type TokenLeakedEvent = Extract<AuthEvent, { type: 'token.leaked' }>;

interface World {
  auth: Auth;
  clock: Clock;
  store: TokenStore;
  events: AuthEvent[];
}

const STORES = tokenStores('test/service/report-leaked.test.ts');
afterAll(dropStores);

async function world(makeStore: () => Promise<TokenStore>): Promise<World> {
  const store = await makeStore();
  const { auth, clock, events } = await testAuth({ everyone: { orgs: { acme: 'owner' } }, tokens: store });
  return { auth, clock, store, events };
}

async function reason(p: Promise<unknown>): Promise<string> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(AuthenticationError);
  return (err as AuthenticationError).reason;
}

const leaked = (events: AuthEvent[]): TokenLeakedEvent[] => events.filter((e): e is TokenLeakedEvent => e.type === 'token.leaked');

describe.each(STORES)('reportLeaked on the %s store', (_name, makeStore) => {
  it('a reported PAT fails on its next request, its children too; one token.leaked event, no value in it', async () => {
    const w = await world(makeStore);
    const me = await w.auth.principalFor('alice');
    const parent = await w.auth.client(me).token.create({ name: 'deploy' });
    const child = await w.auth.client(await w.auth.authenticate(parent.token)).token.create({ name: 'deploy-child' });
    const sibling = await w.auth.client(me).token.create({ name: 'other' });
    // Warm the verified-signature cache: revocation must not depend on it.
    await w.auth.authenticate(parent.token);
    await w.auth.authenticate(child.token);

    const report = await w.auth.reportLeaked([parent.token], { source: 'http', url: 'https://paste.example/x' });
    expect(report).toEqual({ received: 1, revoked: 1, ignored: 0, revokedIds: [parent.info.id], outcomes: ['revoked'] });
    expect(await reason(w.auth.authenticate(parent.token))).toBe('revoked');
    expect(await reason(w.auth.authenticate(child.token))).toBe('revoked');
    expect((await w.auth.authenticate(sibling.token)).tokenName).toBe('other');

    await w.auth.flush();
    const events = leaked(w.events);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'token.leaked',
      actor: { kind: 'server' },
      source: 'http',
      url: 'https://paste.example/x',
      token: { id: parent.info.id, name: 'deploy', kind: 'pat', ownerId: 'alice', parentId: null },
      revokedIds: [parent.info.id, child.info.id],
    });
    // The revocation's one event: no token.revoked beside it.
    expect(w.events.filter((e) => e.type === 'token.revoked')).toHaveLength(0);
    const text = JSON.stringify(w.events);
    for (const t of [parent.token, child.token]) expect(text).not.toContain(t);
  });

  it('a component token is revoked too; a second report of either counts it as inactive and emits nothing', async () => {
    const w = await world(makeStore);
    const component = await w.auth.issueComponentToken('alice', { scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const first = await w.auth.reportLeaked([component], { source: 'ops' });
    expect(first.outcomes).toEqual(['revoked']);
    expect(await reason(w.auth.authenticate(component))).toBe('revoked');
    const again = await w.auth.reportLeaked([component, component], { source: 'ops' });
    expect(again).toMatchObject({ received: 2, revoked: 0, ignored: 2, outcomes: ['inactive', 'inactive'] });
    await w.auth.flush();
    expect(leaked(w.events)).toHaveLength(1);
    expect(leaked(w.events)[0]?.token.kind).toBe('component');
  });

  it('a session is revoked when it has a record; without one (sessions before issue 20) it is inactive', async () => {
    const w = await world(makeStore);
    const session = await w.auth.issueSession('alice');
    const jti = (JSON.parse(Buffer.from(session.split('.')[1] as string, 'base64url').toString()) as { jti: string }).jti;
    const hasRecord = (await w.store.readChain(jti)) !== null;
    const report = await w.auth.reportLeaked([session], { source: 'http' });
    if (hasRecord) {
      expect(report.outcomes).toEqual(['revoked']);
      expect(await reason(w.auth.authenticate(session))).toBe('revoked');
    } else {
      expect(report.outcomes).toEqual(['inactive']);
    }
  });

  it('expired and already revoked tokens are inactive; strings that are not ours are foreign; nothing is revoked', async () => {
    const w = await world(makeStore);
    const me = await w.auth.principalFor('alice');
    const short = await w.auth.client(me).token.create({ name: 'short', expiresIn: '1d' });
    const gone = await w.auth.client(me).token.create({ name: 'gone' });
    await w.auth.client(me).token.revoke('gone');
    const keep = await w.auth.client(me).token.create({ name: 'keep' });
    // Another instance's token: same issuer, another key ring.
    const other = createAuth({ issuer: 'https://svc.test', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
    const foreign = (await other.client(await other.principalFor('alice')).token.create({ name: 'x' })).token;
    // One signature character changed (never the last, whose low bits must stay canonical).
    const at = keep.token.length - 10;
    const tampered = `${keep.token.slice(0, at)}${keep.token[at] === 'A' ? 'B' : 'A'}${keep.token.slice(at + 1)}`;
    w.clock.advance(DAY_MS + 1000);
    const report = await w.auth.reportLeaked([short.token, gone.token, foreign, tampered, 'x'.repeat(9000), '', 'hello'], {
      source: 'http',
    });
    expect(report.outcomes).toEqual(['inactive', 'inactive', 'foreign', 'foreign', 'foreign', 'foreign', 'foreign']);
    expect(report).toMatchObject({ received: 7, revoked: 0, ignored: 7, revokedIds: [] });
    expect((await w.auth.authenticate(keep.token)).tokenName).toBe('keep');
    await w.auth.flush();
    expect(leaked(w.events)).toHaveLength(0);
  });

  it('repeats are judged once and counted as given', async () => {
    const w = await world(makeStore);
    const { token, info } = await w.auth.client(await w.auth.principalFor('alice')).token.create({ name: 'dup' });
    const report = await w.auth.reportLeaked([token, 'junk', token, token], { source: 'http' });
    expect(report).toEqual({
      received: 4,
      revoked: 1,
      ignored: 3,
      revokedIds: [info.id],
      outcomes: ['revoked', 'foreign', 'revoked', 'revoked'],
    });
    await w.auth.flush();
    expect(leaked(w.events)).toHaveLength(1);
  });
});

describe('reportLeaked: input and faults', () => {
  it.each([
    ['not an array', 'abc', {}, 'tokens'],
    ['a non-string', ['a', 1], { source: 'http' }, 'tokens[1]'],
    ['1 001 strings', Array.from({ length: 1001 }, () => 'x'), { source: 'http' }, 'tokens'],
    ['no options', [], undefined, 'options'],
    ['no source', [], {}, 'options.source'],
    ['a source with a space', [], { source: 'a b' }, 'options.source'],
    ['a source of 65 characters', [], { source: 'a'.repeat(65) }, 'options.source'],
    ['a url with a newline', [], { source: 'http', url: 'https://x\n' }, 'options.url'],
    ['a url of 3 000 characters', [], { source: 'http', url: 'x'.repeat(3000) }, 'options.url'],
    ['an unknown option', [], { source: 'http', sauce: 1 }, 'options.sauce'],
  ])('%s is a ValidationError', async (_what, tokens, options, path) => {
    const w = await world(async () => new MemoryTokenStore());
    const err = await rejection(w.auth.reportLeaked(tokens as string[], options as never));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.pathText)).toContain(path);
  });

  it('a list that throws when read (a hostile Proxy) is a ValidationError', async () => {
    const w = await world(async () => new MemoryTokenStore());
    const hostile = new Proxy([], {
      get() {
        throw new Error('boom');
      },
    });
    expect(await rejection(w.auth.reportLeaked(hostile, { source: 'http' }))).toBeInstanceOf(ValidationError);
  });

  it('1 000 strings of junk cost no store call', async () => {
    const inner = new MemoryTokenStore();
    let calls = 0;
    const counting: TokenStore = {
      insert: (r, now) => inner.insert(r, now),
      readChain: (id) => (calls++, inner.readChain(id)),
      listByOwner: (o) => inner.listByOwner(o),
      revoke: (ids, at) => (calls++, inner.revoke(ids, at)),
    };
    const w = await world(async () => counting);
    const junk = Array.from({ length: 1000 }, (_, i) => `eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.${i}`);
    const report = await w.auth.reportLeaked(junk, { source: 'http' });
    expect(report.ignored).toBe(1000);
    expect(calls).toBe(0);
  });

  it('a store that fails is UnavailableError; tokens revoked before the failure stay revoked, with their events', async () => {
    const inner = new MemoryTokenStore();
    let failRevoke = false;
    const flaky: TokenStore = {
      insert: (r, now) => inner.insert(r, now),
      readChain: (id) => inner.readChain(id),
      listByOwner: (o) => inner.listByOwner(o),
      revoke: (ids, at) => (failRevoke ? Promise.reject(new Error('db down: password=hunter2')) : inner.revoke(ids, at)),
    };
    const w = await world(async () => flaky);
    const me = await w.auth.principalFor('alice');
    const a = await w.auth.client(me).token.create({ name: 'a' });
    const b = await w.auth.client(me).token.create({ name: 'b' });
    expect((await w.auth.reportLeaked([a.token], { source: 'http' })).revoked).toBe(1);
    failRevoke = true;
    const err = await rejection(w.auth.reportLeaked([a.token, b.token], { source: 'http' }));
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as Error).message).not.toContain('hunter2');
    failRevoke = false;
    expect(await reason(w.auth.authenticate(a.token))).toBe('revoked');
    expect((await w.auth.authenticate(b.token)).tokenName).toBe('b');
    await w.auth.flush();
    expect(leaked(w.events).map((e) => e.token.name)).toEqual(['a']);
  });
});

const withDb = describeWithDb(
  'reportLeaked on PostgreSQL, two servers at once',
  'PostgreSQL leak tests',
  'test/service/report-leaked.test.ts',
);
withDb('reportLeaked on PostgreSQL, two servers at once', () => {
  it('the same token reported to both servers at the same moment is revoked once: one token.leaked event in all', async () => {
    const pool = newPool(`svc_auth_leaks_${RUN}`);
    const table = tableName('svc_tokens_leaks', 'two');
    onTestFinished(async () => {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
      await pool.end();
    });
    const stores = [new PostgresTokenStore({ pool, table }), new PostgresTokenStore({ pool, table })];
    await stores[0]?.migrate();
    const [a, b] = await Promise.all(stores.map((s) => world(async () => s)));
    const w1 = a as World;
    const w2 = b as World;
    const { token } = await w1.auth.client(await w1.auth.principalFor('alice')).token.create({ name: 'raced' });
    const reports = await Promise.all([w1, w2].map((w) => w.auth.reportLeaked([token], { source: 'github' })));
    expect(reports.map((r) => r.revoked).sort()).toEqual([0, 1]);
    await Promise.all([w1.auth.flush(), w2.auth.flush()]);
    expect([...leaked(w1.events), ...leaked(w2.events)]).toHaveLength(1);
    expect(await reason(w2.auth.authenticate(token))).toBe('revoked');
  });
});
