import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { LastUsedRecorder } from '../../src/service/events';
import { FileTokenStore, MemoryTokenStore, type TokenStore, type TokenUse } from '../../src/stores';
import { testAuth } from '../support/auth';
import { T0 } from '../support/clock';
import { rejection } from '../support/errors';

const MIN = 60_000;

/** A write that records its calls and can be held open or made to fail. */
function writer() {
  const calls: { ids: string[]; at: number }[] = [];
  let hold: Promise<void> | undefined;
  let release = (): void => {};
  let fail = false;
  return {
    calls,
    write: async (uses: readonly TokenUse[], at: Date): Promise<void> => {
      calls.push({ ids: uses.map((u) => u.id), at: at.getTime() });
      if (hold !== undefined) await hold;
      if (fail) throw new Error('disk on fire');
    },
    holdOpen(): void {
      hold = new Promise<void>((r) => (release = r));
    },
    letGo(): void {
      hold = undefined;
      release();
    },
    failing(on: boolean): void {
      fail = on;
    },
  };
}

describe('LastUsedRecorder', () => {
  it('throttles: at most one write per token per interval', async () => {
    const w = writer();
    const r = new LastUsedRecorder({ write: w.write, intervalMs: MIN });
    r.seen('a', T0);
    r.seen('a', T0 + 1000);
    r.seen('a', T0 + MIN - 1);
    await r.flush();
    r.seen('a', T0 + MIN - 1);
    await r.flush();
    expect(w.calls).toEqual([{ ids: ['a'], at: T0 }]);
    r.seen('a', T0 + MIN);
    await r.flush();
    expect(w.calls.map((c) => c.at)).toEqual([T0, T0 + MIN]);
  });

  it('a clock that steps back causes no extra write', async () => {
    const w = writer();
    const r = new LastUsedRecorder({ write: w.write, intervalMs: MIN });
    r.seen('a', T0 + 10 * MIN);
    r.seen('a', T0);
    await r.flush();
    expect(w.calls).toHaveLength(1);
  });

  it('batches: many tokens used in one second are one write; times are whole seconds', async () => {
    const w = writer();
    const r = new LastUsedRecorder({ write: w.write, intervalMs: MIN });
    const ids = Array.from({ length: 500 }, (_, i) => `t${i}`);
    for (const id of ids) r.seen(id, T0 + 123);
    r.seen('late', T0 + 2500);
    await r.flush();
    expect(w.calls).toEqual([
      { ids, at: T0 },
      { ids: ['late'], at: T0 + 2000 },
    ]);
    expect(r.stats).toMatchObject({ written: 501, batches: 2, failed: 0, dropped: 0 });
  });

  it('a failing store: the write is counted and dropped, flush never rejects, later writes still happen', async () => {
    const w = writer();
    const r = new LastUsedRecorder({ write: w.write, intervalMs: MIN });
    w.failing(true);
    r.seen('a', T0);
    await expect(r.flush()).resolves.toBeUndefined();
    expect(r.stats).toMatchObject({ failed: 1, written: 0 });
    expect(r.pending).toBe(0);
    w.failing(false);
    r.seen('b', T0);
    await r.flush();
    expect(r.stats).toMatchObject({ failed: 1, written: 1 });
  });

  it('a slow store: one batch in flight at a time; uses beyond maxPending are dropped, not queued', async () => {
    const w = writer();
    const r = new LastUsedRecorder({ write: w.write, intervalMs: MIN, maxPending: 10 });
    w.holdOpen();
    r.seen('first', T0);
    const flushing = r.flush();
    for (let i = 0; i < 100; i++) r.seen(`t${i}`, T0);
    expect(r.pending).toBe(10);
    expect(r.stats.dropped).toBe(90);
    expect(w.calls).toHaveLength(1); // nothing else started while the first is in flight
    w.letGo();
    await flushing;
    await r.flush();
    expect(w.calls).toHaveLength(2);
    expect(w.calls[1]?.ids).toHaveLength(10);
  });

  it('property: for any uses and flushes, no token is written twice within one interval', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('use' as const), id: fc.constantFrom('a', 'b', 'c'), dt: fc.integer({ min: 0, max: 90_000 }) }),
      fc.record({ kind: fc.constant('flush' as const) }),
    );
    return fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const w = writer();
        const r = new LastUsedRecorder({ write: w.write, intervalMs: MIN });
        let now = T0;
        for (const o of ops) {
          if (o.kind === 'use') {
            now += o.dt;
            r.seen(o.id, now);
          } else await r.flush();
        }
        await r.flush();
        const times = new Map<string, number[]>();
        for (const c of w.calls) for (const id of c.ids) times.set(id, [...(times.get(id) ?? []), c.at]);
        for (const list of times.values()) {
          // Written times are whole seconds: consecutive writes are at least interval - 1 s apart.
          for (let i = 1; i < list.length; i++) expect((list[i] as number) - (list[i - 1] as number)).toBeGreaterThan(MIN - 1000);
        }
      }),
    );
  });

  it('property: the queue never exceeds its bound while the store is stuck, and remembered tokens stay bounded', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 400 }),
        fc.integer({ min: 1, max: 50 }),
        async (uses, bound) => {
          const w = writer();
          w.holdOpen();
          const r = new LastUsedRecorder({ write: w.write, intervalMs: MIN, maxPending: bound, maxTracked: 64 });
          r.seen('start', T0);
          const flushing = r.flush();
          for (const u of uses) {
            r.seen(`t${u}`, T0 + u);
            expect(r.pending).toBeLessThanOrEqual(bound);
          }
          w.letGo();
          await flushing;
          await r.flush();
          expect(r.pending).toBe(0);
        },
      ),
    ));
});

describe('createAuth last-used recording', () => {
  it('records a PAT and a component token on authenticate; token.list shows lastUsedAt after flush', async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const api = s.auth.client(me).token;
    const { token, info } = await api.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    expect(info.lastUsedAt).toBeNull();
    const component = await s.auth.issueComponentToken('alice');
    s.clock.advance(5000);
    await s.auth.authenticate(token);
    const c = await s.auth.authenticate(component);
    await s.auth.flush();
    expect((await api.get('ci')).lastUsedAt?.getTime()).toBe(T0 + 5000);
    expect((await s.store.readChain(c.tokenId as string))?.[0]?.lastUsedAt?.getTime()).toBe(T0 + 5000);
  });

  it('throttled per lastUsedIntervalMs on the injected clock: one touch per token per interval', async () => {
    const store = new MemoryTokenStore();
    const touched: string[][] = [];
    const spy: TokenStore = Object.assign(Object.create(store) as MemoryTokenStore, {
      recordUse: (uses: readonly TokenUse[], at: Date) => {
        touched.push(uses.map((u) => u.id));
        return store.recordUse(uses, at);
      },
    });
    const s = await testAuth({ tokens: spy, lastUsedIntervalMs: 10_000 });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    for (let i = 0; i < 20; i++) {
      await s.auth.authenticate(token);
      s.clock.advance(1000);
      await s.auth.flush();
    }
    expect(touched).toHaveLength(2); // at 0 s and at 10 s
  });

  it('a failing write (recordUse or touch) never fails or allows a request', async () => {
    const store = new MemoryTokenStore();
    const broken: TokenStore = Object.assign(Object.create(store) as MemoryTokenStore, {
      touch: () => Promise.reject(new Error('disk full')),
      recordUse: () => Promise.reject(new Error('disk full')),
    });
    const s = await testAuth({ tokens: broken });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const p = await s.auth.authenticate(token);
    expect(s.auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(s.auth.authorize(p, 'acme/web', 'repo:write').allowed).toBe(false);
    await expect(s.auth.flush()).resolves.toBeUndefined();
    expect((await s.auth.client(me).token.get('ci')).lastUsedAt).toBeNull();
  });

  it('a touch that never answers: authenticate does not wait for it', async () => {
    const store = new MemoryTokenStore();
    const stuck: TokenStore = Object.assign(Object.create(store) as MemoryTokenStore, {
      touch: () => new Promise<void>(() => {}),
      recordUse: () => new Promise<void>(() => {}),
    });
    const s = await testAuth({ tokens: stuck, storeTimeoutMs: 20 });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci' });
    const p = await s.auth.authenticate(token);
    expect(p.kind).toBe('pat');
    await s.auth.flush(); // the store deadline ends the stuck write; flush still resolves
  });

  it('a store with touch but no recordUse records the time alone (no address)', async () => {
    const store = new MemoryTokenStore();
    const timeOnly: TokenStore = {
      insert: (r, n) => store.insert(r, n),
      readChain: (id) => store.readChain(id),
      listByOwner: (o) => store.listByOwner(o),
      revoke: (ids, at) => store.revoke(ids, at),
      touch: (ids, at) => store.touch(ids, at),
    };
    const s = await testAuth({ tokens: timeOnly });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci' });
    s.clock.advance(2000);
    await s.auth.authenticate(token, { address: '203.0.113.7', userAgent: 'curl/8.5.0' });
    await s.auth.flush();
    const info = await s.auth.client(me).token.get('ci');
    expect(info.lastUsedAt?.getTime()).toBe(T0 + 2000);
    expect(info.lastUsed).toEqual({ at: new Date(T0 + 2000), address: null, userAgent: null });
    expect(info.usedFrom).toEqual([]);
  });

  it('a store without touch works as before (no last-used time); lastUsedIntervalMs 0 turns recording off', async () => {
    const store = new MemoryTokenStore();
    const plain: TokenStore = {
      insert: (r, n) => store.insert(r, n),
      readChain: (id) => store.readChain(id),
      listByOwner: (o) => store.listByOwner(o),
      revoke: (ids, at) => store.revoke(ids, at),
    };
    for (const extra of [{ tokens: plain }, { tokens: new MemoryTokenStore(), lastUsedIntervalMs: 0 }]) {
      const s = await testAuth(extra);
      const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
      const { token } = await s.auth.client(me).token.create({ name: 'ci' });
      await s.auth.authenticate(token);
      await s.auth.flush();
      expect((await s.auth.client(me).token.get('ci')).lastUsedAt).toBeNull();
    }
  });

  it.each([[-1], [999], [1.5], ['60s'], [86_400_001]])('lastUsedIntervalMs %j is refused when the object is built', async (value) => {
    const err = await rejection(() => testAuth({ lastUsedIntervalMs: value as number }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.pathText)).toContain('lastUsedIntervalMs');
  });

  it('the file store keeps lastUsedAt across instances (what svc token list shows)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-last-used-'));
    try {
      const s = await testAuth({ tokens: new FileTokenStore(dir) });
      const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
      const { token } = await s.auth.client(me).token.create({ name: 'ci' });
      s.clock.advance(3000);
      await s.auth.authenticate(token);
      await s.auth.flush();
      const again = await new FileTokenStore(dir).listByOwner('alice');
      expect(again.find((r) => r.kind === 'pat')?.lastUsedAt?.getTime()).toBe(T0 + 3000);
      expect(again.find((r) => r.kind === 'session')?.lastUsedAt?.getTime()).toBe(T0); // the session's own use
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
