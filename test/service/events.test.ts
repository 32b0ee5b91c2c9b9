import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, ValidationError } from '../../src/errors';
import { EventDispatcher, type AuthEvent } from '../../src/service/events';
import { reportDenied } from '../../src/service';
import { testAuth } from '../support/auth';
import { T0, DAY_MS } from '../support/clock';
import { rejection } from '../support/errors';

const READ = [{ resource: 'acme/web', permissions: ['repo:read'] }];

function collector() {
  const events: AuthEvent[] = [];
  return { events, onEvent: (e: AuthEvent): void => void events.push(e) };
}

/** No event may carry a token value (T8): not as a field, not inside any string. */
function expectNoTokenValue(events: readonly AuthEvent[], tokens: readonly string[]): void {
  const text = JSON.stringify(events);
  for (const t of tokens) {
    expect(text).not.toContain(t);
    expect(text).not.toContain(t.split('.')[2] as string); // not even the signature
  }
}

describe('EventDispatcher', () => {
  const event = (n: number): AuthEvent => ({
    type: 'auth.failed',
    at: new Date(T0 + n),
    actor: { kind: 'unknown', userId: null, tokenId: null, tokenName: null },
    reason: 'malformed',
  });

  it('emit returns before the hook runs; events arrive in order', async () => {
    const seen: number[] = [];
    const d = new EventDispatcher((e) => void seen.push(e.at.getTime() - T0));
    d.emit(event(1));
    d.emit(event(2));
    expect(seen).toEqual([]);
    await d.flush();
    expect(seen).toEqual([1, 2]);
  });

  it('a throwing or rejecting hook is counted; later events are still delivered', async () => {
    let n = 0;
    const d = new EventDispatcher(() => {
      n++;
      if (n === 1) throw new Error('sync boom');
      if (n === 2) return Promise.reject(new Error('async boom'));
      return undefined;
    });
    for (let i = 0; i < 3; i++) d.emit(event(i));
    await d.flush();
    expect(d.stats).toMatchObject({ delivered: 3, failed: 2 });
  });

  it('a hook that never settles is left behind at its deadline; flush still resolves', async () => {
    const d = new EventDispatcher(() => new Promise<void>(() => {}), { hookTimeoutMs: 5 });
    d.emit(event(1));
    d.emit(event(2));
    await d.flush();
    expect(d.stats).toMatchObject({ delivered: 2, timedOut: 2 });
  });

  it('property: the queue never holds more than its bound; the rest is counted as dropped', () =>
    fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 50 }), async (count, bound) => {
        const d = new EventDispatcher(() => undefined, { maxQueue: bound });
        for (let i = 0; i < count; i++) {
          d.emit(event(i));
          expect(d.queued).toBeLessThanOrEqual(bound);
        }
        expect(d.stats.dropped).toBe(Math.max(0, count - bound));
        await d.flush();
        expect(d.stats.delivered).toBe(Math.min(count, bound));
      }),
    ));
});

describe('createAuth({ onEvent })', () => {
  it('token.created: actor, token id, name, scopes and expiry; never the token value', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const session = await s.auth.issueSession('alice', { name: 'web' });
    const me = await s.auth.authenticate(session);
    const { token, info } = await s.auth.client(me).token.create({ name: 'ci', scopes: READ });
    const component = await s.auth.issueComponentToken('alice');
    await s.auth.flush();
    expect(c.events).toEqual([
      {
        type: 'token.created',
        at: new Date(T0),
        actor: { kind: 'server', userId: null, tokenId: null, tokenName: null },
        token: {
          id: me.tokenId,
          name: 'web',
          kind: 'session',
          ownerId: 'alice',
          parentId: null,
          expiresAt: new Date(T0 + DAY_MS / 2),
          scopes: null,
        },
      },
      {
        type: 'token.created',
        at: new Date(T0),
        actor: { kind: 'session', userId: 'alice', tokenId: me.tokenId, tokenName: null },
        token: {
          id: info.id,
          name: 'ci',
          kind: 'pat',
          ownerId: 'alice',
          parentId: null,
          expiresAt: new Date(T0 + 30 * DAY_MS),
          scopes: READ,
        },
      },
      expect.objectContaining({
        type: 'token.created',
        actor: expect.objectContaining({ kind: 'server' }),
        token: expect.objectContaining({ kind: 'component' }),
      }),
    ]);
    expectNoTokenValue(c.events, [session, token, component]);
  });

  it('token.revoked lists the ids the cascade revoked, with the revoking PAT as actor', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const parent = await s.auth.client(me).token.create({ name: 'parent' });
    const p = await s.auth.authenticate(parent.token);
    const child = await s.auth.client(p).token.create({ name: 'child', scopes: READ });
    const cp = await s.auth.authenticate(child.token);
    const grandchild = await s.auth.client(cp).token.create({ name: 'grandchild', scopes: READ });
    await s.auth.flush();
    c.events.length = 0;
    await s.auth.client(p).token.revoke('child');
    await s.auth.revokeToken(parent.info.id);
    await s.auth.flush();
    expect(c.events).toEqual([
      expect.objectContaining({
        type: 'token.revoked',
        actor: { kind: 'pat', userId: 'alice', tokenId: parent.info.id, tokenName: 'parent' },
        tokenId: child.info.id,
        revokedIds: [child.info.id, grandchild.info.id],
      }),
      expect.objectContaining({
        type: 'token.revoked',
        actor: expect.objectContaining({ kind: 'server' }),
        tokenId: parent.info.id,
        revokedIds: [parent.info.id],
      }),
    ]);
    expectNoTokenValue(c.events, [parent.token, child.token, grandchild.token]);
  });

  it('auth.failed for a revoked token still in use: reason and token id in the event and on the error, never the value', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token, info } = await s.auth.client(me).token.create({ name: 'ci', scopes: READ });
    await s.auth.client(me).token.revoke('ci');
    const err = await rejection(s.auth.authenticate(token));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ code: 'authentication', reason: 'revoked', tokenId: info.id });
    await s.auth.flush();
    const failed = c.events.filter((e) => e.type === 'auth.failed');
    expect(failed).toEqual([
      {
        type: 'auth.failed',
        at: new Date(T0),
        reason: 'revoked',
        actor: { kind: 'pat', userId: 'alice', tokenId: info.id, tokenName: null },
      },
    ]);
    expectNoTokenValue(c.events, [token]);
  });

  it('auth.failed for a forged token (signature tampered): no token id, no user, actor unknown', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci' });
    const forged = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const err = await rejection(s.auth.authenticate(forged));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).tokenId).toBeUndefined();
    await s.auth.flush();
    const failed = c.events.filter((e) => e.type === 'auth.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.actor).toEqual({ kind: 'unknown', userId: null, tokenId: null, tokenName: null });
    expectNoTokenValue(c.events, [token, forged]);
  });

  it('auth.failed for an expired token carries its id (expired by its record, after the signature verified)', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const parent = await s.auth.client(me).token.create({ name: 'p', expiresIn: '2d' });
    const p = await s.auth.authenticate(parent.token);
    const child = await s.auth.client(p).token.create({ name: 'c', scopes: READ, expiresIn: '1d' });
    await s.auth.revokeToken(parent.info.id);
    const err = await rejection(s.auth.authenticate(child.token));
    expect(err).toMatchObject({ reason: 'revoked', tokenId: child.info.id });
  });

  it('a hook that throws on every event changes no decision and no answer', async () => {
    const s = await testAuth({
      onEvent: () => {
        throw new Error('audit sink down');
      },
    });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci', scopes: READ });
    const p = await s.auth.authenticate(token);
    expect(s.auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    await s.auth.client(me).token.revoke('ci');
    expect(await rejection(s.auth.authenticate(token))).toMatchObject({ reason: 'revoked' });
    await expect(s.auth.flush()).resolves.toBeUndefined();
  });

  it('a slow async hook delays no answer: every call resolves while the hook is still pending', async () => {
    let release = (): void => {};
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const s = await testAuth({
      onEvent: async () => {
        calls++;
        await gate;
      },
    });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci', scopes: READ });
    await s.auth.client(me).token.revoke('ci');
    expect(await rejection(s.auth.authenticate(token))).toMatchObject({ reason: 'revoked' });
    // All of that answered while the first hook call has not finished.
    release();
    await s.auth.flush();
    expect(calls).toBe(4); // session created, ci created, ci revoked, auth.failed
  });

  it('onEvent that is not a function is refused when the object is built', async () => {
    const err = await rejection(() => testAuth({ onEvent: 'log' as unknown as () => void }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.pathText)).toEqual(['onEvent']);
  });
});

describe('reportDenied (for the HTTP guards and adapters)', () => {
  it('queues access.denied with the principal as actor, the resource, permission, thing and reason', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token, info } = await s.auth.client(me).token.create({ name: 'ci', scopes: READ });
    const p = await s.auth.authenticate(token);
    const d = s.auth.authorize(p, 'acme/web', 'repo:write', 'Doc/a');
    if (d.allowed) throw new Error('expected a deny');
    await s.auth.flush();
    c.events.length = 0;
    reportDenied(s.auth, p, 'acme/web', 'repo:write', d.reason, 'Doc/a');
    await s.auth.flush();
    expect(c.events).toEqual([
      {
        type: 'access.denied',
        at: new Date(T0),
        actor: { kind: 'pat', userId: 'alice', tokenId: info.id, tokenName: 'ci' },
        resource: 'acme/web',
        permission: 'repo:write',
        thingName: 'Doc/a',
        reason: 'scope',
      },
    ]);
  });

  it('never throws and does nothing for an auth without a hook, a foreign object or garbage arguments', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const plain = await testAuth({ onEvent: undefined });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    expect(() => reportDenied(plain.auth, me, 'acme/web', 'repo:read', 'scope')).not.toThrow();
    expect(() => reportDenied({}, me, 'acme/web', 'repo:read', 'scope')).not.toThrow();
    expect(() => reportDenied(s.auth, null as never, 'acme/web', 'repo:read', 'scope')).not.toThrow();
    expect(() => reportDenied(s.auth, me, 42 as never, 'repo:read', 'scope')).not.toThrow();
    expect(() => reportDenied(s.auth, me, 'acme/web', 'repo:read', 'maybe' as never)).not.toThrow();
    await s.auth.flush();
    expect(c.events.map((e) => e.type)).toEqual(['token.created']); // the session's own, nothing reported
  });

  it('a huge hostile resource or thing name is cut, so one request cannot bloat the queue', async () => {
    const c = collector();
    const s = await testAuth({ onEvent: c.onEvent });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    reportDenied(s.auth, me, 'a'.repeat(1_000_000), 'repo:read', 'invalid', 'T/'.repeat(500_000));
    await s.auth.flush();
    const e = c.events.find((x) => x.type === 'access.denied');
    expect(e?.type === 'access.denied' && e.resource.length <= 1024 && (e.thingName ?? '').length <= 1024).toBe(true);
  });
});
