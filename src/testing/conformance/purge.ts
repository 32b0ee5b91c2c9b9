/**
 * Conformance cases for the optional `TokenStore.purgeSessions` (`auth.purge`):
 * ended sessions go with their whole subtree and nothing else goes (PATs and
 * component records stay, and so does a session with a PAT below it), never
 * leaving a record whose parent is missing. A store without the method passes.
 *
 * Each case lives in its own era decades before the suite's other records
 * (1990 and earlier, going back one era per case), so that on a shared table a
 * purge never reaches a record of another case, of a later case's era, or of
 * real use.
 * @module
 */
import { expect } from 'vitest';
import type { TokenRecord, TokenStore } from '../../stores';
import { DAY, fixtures, HOUR, type CaseRegistrar } from './fixtures';

/** The start of case `k`'s era: 1990, 1988, 1986 ... */
const era = (k: number): number => Date.UTC(1990 - 2 * k, 0, 1);

/** The store's purge, or `undefined` when it has none (the case passes). */
function purgeOf(s: TokenStore): ((cutoff: Date, limit: number) => Promise<number>) | undefined {
  return typeof s.purgeSessions === 'function' ? s.purgeSessions.bind(s) : undefined;
}

/**
 * @internal Register the purge cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * purgeCases((name, run) => cases.push({ name, run: (s, twin) => run(() => s, () => twin) }));
 * ```
 */
export function purgeCases(it: CaseRegistrar): void {
  it('purge (optional): removes sessions that expired or were revoked at or before the cutoff, and nothing else', async (store) => {
    const s = store();
    const purge = purgeOf(s);
    if (purge === undefined) return;
    const f = fixtures();
    const t = (ms: number): Date => new Date(era(0) + ms);
    const cutoff = t(10 * DAY);
    const session = (name: string, expiresAt: Date): TokenRecord =>
      f.record({ id: f.id(name), kind: 'session', name: 'session', createdAt: t(0), expiresAt });
    const expired = session('expired', t(DAY));
    const atCutoff = session('at-cutoff', cutoff);
    const revoked = session('revoked', t(100 * DAY));
    const live = session('live', t(100 * DAY));
    const revokedLater = session('revoked-later', t(100 * DAY));
    const pat = f.record({ id: f.id('pat'), createdAt: t(0), expiresAt: t(DAY) });
    const component = f.record({ id: f.id('comp'), kind: 'component', name: 'c', createdAt: t(0), expiresAt: t(HOUR) });
    for (const r of [expired, atCutoff, revoked, live, revokedLater, pat, component]) expect(await s.insert(r, t(0))).toBe('ok');
    await s.revoke([revoked.id, pat.id], t(2 * DAY));
    await s.revoke([revokedLater.id], new Date(cutoff.getTime() + 1000));
    expect(await purge(cutoff, 100)).toBe(3);
    for (const gone of [expired, atCutoff, revoked]) expect(await s.readChain(gone.id)).toBeNull();
    const kept = [live, revokedLater, pat, component].map((r) => r.id);
    expect((await s.listByOwner(f.owner())).map((r) => r.id)).toEqual(kept);
    expect(await purge(cutoff, 100)).toBe(0);
  });

  it("purge (optional): an ended grant's access-token records go with it; an ended access token alone leaves its grant", async (store) => {
    const s = store();
    const purge = purgeOf(s);
    if (purge === undefined) return;
    const f = fixtures();
    const t = (ms: number): Date => new Date(era(1) + ms);
    const grant = f.record({ id: f.id('grant'), kind: 'session', name: 'oauth-x', createdAt: t(0), expiresAt: t(30 * DAY) });
    const access = (name: string, expiresAt: Date, parentId: string): TokenRecord =>
      f.record({ id: f.id(name), kind: 'session', name: 'oauth-access-token', parentId, createdAt: t(0), expiresAt });
    const a1 = access('a1', t(HOUR), grant.id);
    // An access token may outlive its grant's record: it still goes with the grant.
    const a2 = access('a2', t(40 * DAY), grant.id);
    const a3 = access('a3', t(40 * DAY), a2.id);
    for (const r of [grant, a1, a2, a3]) expect(await s.insert(r, t(0))).toBe('ok');
    expect(await purge(t(2 * HOUR), 100)).toBe(1);
    expect(await s.readChain(a1.id)).toBeNull();
    expect((await s.readChain(a3.id))?.map((r) => r.id)).toEqual([a3.id, a2.id, grant.id]);
    await s.revoke([grant.id], t(3 * HOUR));
    expect(await purge(t(5 * HOUR), 100)).toBe(3);
    for (const gone of [grant, a2, a3]) expect(await s.readChain(gone.id)).toBeNull();
    expect(await s.listByOwner(f.owner())).toEqual([]);
    // A purged grant is no parent: nothing can be hung under it again.
    expect(await s.insert(access('a4', t(40 * DAY), grant.id), t(4 * HOUR))).toBe('parent_inactive');
  });

  it('purge (optional): a session with a PAT anywhere below it is kept whole, so no PAT is lost or orphaned', async (store) => {
    const s = store();
    const purge = purgeOf(s);
    if (purge === undefined) return;
    const f = fixtures();
    const t = (ms: number): Date => new Date(era(2) + ms);
    const root = f.record({ id: f.id('root'), kind: 'session', name: 'session', createdAt: t(0), expiresAt: t(DAY) });
    const mid = f.record({ id: f.id('mid'), kind: 'session', name: 'session', parentId: root.id, createdAt: t(0), expiresAt: t(DAY) });
    const pat = f.record({ id: f.id('pat'), parentId: mid.id, createdAt: t(0), expiresAt: t(DAY) });
    for (const r of [root, mid, pat]) expect(await s.insert(r, t(0))).toBe('ok');
    expect(await purge(t(10 * DAY), 100)).toBe(0);
    expect((await s.readChain(pat.id))?.map((r) => r.id)).toEqual([pat.id, mid.id, root.id]);
  });

  it('purge (optional): limit counts the sessions picked, each removed with its subtree; calls repeated until 0 finish the job', async (store) => {
    const s = store();
    const purge = purgeOf(s);
    if (purge === undefined) return;
    const f = fixtures();
    const t = (ms: number): Date => new Date(era(3) + ms);
    const grant = f.record({ id: f.id('grant'), kind: 'session', name: 'g', createdAt: t(0), expiresAt: t(DAY) });
    const kids = [1, 2].map((i) =>
      f.record({ id: f.id(`k${i}`), kind: 'session', name: 'k', parentId: grant.id, createdAt: t(0), expiresAt: t(90 * DAY) }),
    );
    for (const r of [grant, ...kids]) expect(await s.insert(r, t(0))).toBe('ok');
    // Only the grant ended by this cutoff: one session picked, three records removed.
    expect(await purge(t(2 * DAY), 1)).toBe(3);
    const leaves = [1, 2, 3].map((i) => f.record({ id: f.id(`l${i}`), kind: 'session', name: 'l', createdAt: t(0), expiresAt: t(DAY) }));
    for (const r of leaves) expect(await s.insert(r, t(0))).toBe('ok');
    const counts: number[] = [];
    for (let n = await purge(t(2 * DAY), 1); n > 0 && counts.length < 10; n = await purge(t(2 * DAY), 1)) counts.push(n);
    expect(counts).toEqual([1, 1, 1]);
    expect(await s.listByOwner(f.owner())).toEqual([]);
  });

  it('purge (optional, twin): two servers purging at once remove each record once', async (store, twin) => {
    const s = store();
    const other = twin();
    const purge = purgeOf(s);
    const purgeOther = other === undefined ? undefined : purgeOf(other);
    if (purge === undefined || purgeOther === undefined) return;
    const f = fixtures();
    const t = (ms: number): Date => new Date(era(4) + ms);
    const records = Array.from({ length: 12 }, (_, i) =>
      f.record({ id: f.id(`s${i}`), kind: 'session', name: 's', createdAt: t(0), expiresAt: t(DAY) }),
    );
    for (const r of records) expect(await s.insert(r, t(0))).toBe('ok');
    const [a, b] = await Promise.all([purge(t(DAY), 1000), purgeOther(t(DAY), 1000)]);
    expect(a + b).toBe(12);
    expect(await s.listByOwner(f.owner())).toEqual([]);
  });

  it('purge (optional): bad arguments reject with ValidationError (a promise, never a synchronous throw), removing nothing', async (store) => {
    const s = store();
    const purge = purgeOf(s);
    if (purge === undefined) return;
    const f = fixtures();
    const t = (ms: number): Date => new Date(era(5) + ms);
    const ended = f.record({ id: f.id('s'), kind: 'session', name: 's', createdAt: t(0), expiresAt: t(DAY) });
    expect(await s.insert(ended, t(0))).toBe('ok');
    for (const [cutoff, limit] of [
      [new Date(Number.NaN), 10],
      ['1990-01-01', 10],
      [t(2 * DAY), 0],
      [t(2 * DAY), 1.5],
      [t(2 * DAY), -1],
    ] as const) {
      let p: Promise<number> | undefined;
      expect(() => {
        p = purge(cutoff as Date, limit);
      }).not.toThrow();
      await expect(p).rejects.toMatchObject({ code: 'validation' });
    }
    expect((await s.readChain(ended.id))?.[0]?.id).toBe(ended.id);
  });
}
