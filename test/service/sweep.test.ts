/**
 * `auth.sweepExpiring`: one `token.expiring` per token and threshold, kept
 * in the store (a second sweep, a restart on the same file, another instance
 * warn nothing new); only active PATs; options checked; a store that cannot
 * keep the mark, or answers garbage, is refused rather than trusted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnavailableError, ValidationError } from '../../src/errors';
import type { AuthEvent } from '../../src/service';
import { FileTokenStore, MemoryTokenStore, type TokenStore } from '../../src/stores';
import { testAuth } from '../support/auth';
import { DAY_MS, T0 } from '../support/clock';
import { issuesOf, rejection } from '../support/errors';

async function world(extra: Parameters<typeof testAuth>[0] = {}) {
  const events: AuthEvent[] = [];
  const s = await testAuth({ onEvent: (e) => void events.push(e), ...extra });
  const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
  const api = s.auth.client(me).token;
  const expiring = async (): Promise<AuthEvent[]> => {
    await s.auth.flush();
    return events.filter((e) => e.type === 'token.expiring');
  };
  return { ...s, api, events, expiring };
}

describe('auth.sweepExpiring', () => {
  it('warns once per token and threshold, with token.expiring events; returns what it warned about, without values', async () => {
    const w = await world();
    const soon = await w.api.create({ name: 'soon', expiresIn: '3d' });
    await w.api.create({ name: 'later', expiresIn: '30d' });
    await w.api.create({ name: 'gone', expiresIn: '2d' });
    await w.api.revoke('gone');
    await w.auth.issueComponentToken('alice'); // an hour long: never swept
    const warned = await w.auth.sweepExpiring({ within: '7d' });
    expect(warned.map((t) => [t.name, t.ownerId, t.withinDays, t.status])).toEqual([['soon', 'alice', 7, 'active']]);
    expect(warned[0]?.expiresAt.getTime()).toBe(T0 + 3 * DAY_MS);
    expect(JSON.stringify(warned)).not.toContain(soon.token);
    expect(await w.auth.sweepExpiring({ within: '7d' })).toEqual([]);
    expect(await w.auth.sweepExpiring({ within: 7 })).toEqual([]);
    const events = await w.expiring();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'token.expiring',
      actor: { kind: 'server' },
      token: { id: soon.info.id, name: 'soon', kind: 'pat', ownerId: 'alice', parentId: null },
      withinDays: 7,
    });
    // A shorter threshold warns again, once; a day later 'later' is still far off.
    w.clock.advance(DAY_MS);
    expect((await w.auth.sweepExpiring({ within: '3d' })).map((t) => t.name)).toEqual(['soon']);
    expect(await w.auth.sweepExpiring({ within: '3d' })).toEqual([]);
    expect((await w.expiring()).map((e) => (e.type === 'token.expiring' ? e.withinDays : 0))).toEqual([7, 3]);
  });

  it('children are swept like any PAT (their own expiry, clamped to the parent’s)', async () => {
    const w = await world();
    const { token: parent } = await w.api.create({ name: 'parent', expiresIn: '5d' });
    await w.auth.client(await w.auth.authenticate(parent)).token.create({ name: 'child', expiresIn: '30d' });
    // The same expiry: equal expiries come in id order, so the names are compared as a set.
    expect((await w.auth.sweepExpiring({ within: '7d' })).map((t) => t.name).sort()).toEqual(['child', 'parent']);
  });

  it('a restart on the same file store, or another process on it, does not warn again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-sweep-'));
    try {
      const first = await world({ tokens: new FileTokenStore(dir) });
      await first.api.create({ name: 'soon', expiresIn: '2d' });
      const second = await world({ tokens: new FileTokenStore(dir) });
      const [a, b] = await Promise.all([first.auth.sweepExpiring({ within: '7d' }), second.auth.sweepExpiring({ within: '7d' })]);
      expect(a.length + b.length).toBe(1);
      const restarted = await world({ tokens: new FileTokenStore(dir) });
      expect(await restarted.auth.sweepExpiring({ within: '7d' })).toEqual([]);
      expect((await first.expiring()).length + (await second.expiring()).length).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes at most `limit` per call; the rest come with the next sweep', async () => {
    const w = await world();
    for (let i = 0; i < 5; i++) await w.api.create({ name: `t${i}`, expiresIn: `${i + 1}d` });
    expect((await w.auth.sweepExpiring({ within: '7d', limit: 2 })).map((t) => t.name)).toEqual(['t0', 't1']);
    expect((await w.auth.sweepExpiring({ within: '7d', limit: 10 })).map((t) => t.name)).toEqual(['t2', 't3', 't4']);
  });

  it.each([
    [undefined, ''],
    [{}, 'within'],
    [{ within: '7h' }, 'within'],
    [{ within: '0d' }, 'within'],
    [{ within: 366 }, 'within'],
    [{ within: '7d', limit: 0 }, 'limit'],
    [{ within: '7d', limit: 10_001 }, 'limit'],
    [{ within: '7d', limt: 5 }, 'limt'],
  ])('options %j are a ValidationError at %j', async (options, path) => {
    const w = await world();
    expect(issuesOf(await rejection(w.auth.sweepExpiring(options as never))).map((i) => i.pathText)).toContain(path);
  });

  it('a store without markExpiring is refused (no fallback that would warn on every sweep)', async () => {
    const inner = new MemoryTokenStore();
    const plain: TokenStore = {
      insert: (r, n) => inner.insert(r, n),
      readChain: (id) => inner.readChain(id),
      listByOwner: (o) => inner.listByOwner(o),
      revoke: (ids, at) => inner.revoke(ids, at),
    };
    const w = await world({ tokens: plain });
    const err = await rejection(w.auth.sweepExpiring({ within: '7d' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues[0]?.pathText).toBe('tokens');
  });

  it('a store that answers garbage, or claims a token outside the window, fails closed with UnavailableError (no event)', async () => {
    const inner = new MemoryTokenStore();
    const answers: unknown[] = [
      null,
      [{ id: 'x' }],
      [{ id: 'x', name: 'x', ownerId: 'a', kind: 'pat', createdAt: new Date(T0), expiresAt: new Date(T0 + 30 * DAY_MS) }],
      new Array(5).fill(0),
    ];
    for (const answer of answers) {
      const broken: TokenStore = Object.assign(Object.create(inner) as MemoryTokenStore, { markExpiring: async () => answer });
      const w = await world({ tokens: broken });
      expect(await rejection(w.auth.sweepExpiring({ within: '7d', limit: 3 }))).toBeInstanceOf(UnavailableError);
      expect(await w.expiring()).toEqual([]);
    }
  });
});
