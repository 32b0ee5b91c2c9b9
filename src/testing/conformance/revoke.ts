/**
 * Conformance cases for `revoke` (T6: whole subtrees, first revocation time
 * kept) and for the races a shared store must survive: parallel inserts of one
 * name, and a child inserted while its parent is revoked.
 * @module
 */
import { expect } from 'vitest';
import type { InsertResult, TokenStore } from '../../stores';
import { at, fixtures } from './fixtures';

/**
 * @internal Register the revoke and race cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * revokeCases((name, run) => cases.push({ name, run: (s) => run(() => s) }));
 * ```
 */
export function revokeCases(it: (name: string, run: (store: () => TokenStore) => Promise<void>) => void): void {
  it('T6: revoke cascades to the whole subtree in one call and returns the ids newly revoked', async (store) => {
    const f = fixtures();
    const root = f.record({ id: f.id('root'), name: 'root' });
    const a = f.record({ id: f.id('a'), name: 'a', parentId: root.id });
    const a1 = f.record({ id: f.id('a1'), kind: 'component', name: 'a1', parentId: a.id });
    const b = f.record({ id: f.id('b'), name: 'b', parentId: root.id });
    const stranger = f.record({ id: f.id('stranger'), name: 'stranger' });
    for (const r of [root, a, a1, b, stranger]) expect(await store().insert(r, at(0))).toBe('ok');
    const revoked = await store().revoke([root.id], at(5000));
    expect([...revoked].sort()).toEqual([root.id, a.id, a1.id, b.id].sort());
    for (const r of [root, a, a1, b]) {
      const chain = await store().readChain(r.id);
      expect(chain?.[0]?.revokedAt?.getTime()).toBe(at(5000).getTime());
    }
    expect((await store().readChain(stranger.id))?.[0]?.revokedAt).toBeNull();
  });

  it('T6: revoking a child leaves its parent active', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('p'), name: 'p' }), at(0))).toBe('ok');
    expect(await store().insert(f.record({ id: f.id('c'), parentId: f.id('p') }), at(0))).toBe('ok');
    expect(await store().revoke([f.id('c')], at(1000))).toEqual([f.id('c')]);
    expect((await store().readChain(f.id('p')))?.[0]?.revokedAt).toBeNull();
  });

  it('revoke keeps an earlier revokedAt and reports only records newly revoked', async (store) => {
    const f = fixtures();
    const root = f.record({ id: f.id('root'), name: 'root' });
    const a = f.record({ id: f.id('a'), name: 'a', parentId: root.id });
    const a1 = f.record({ id: f.id('a1'), name: 'a1', parentId: a.id });
    const b = f.record({ id: f.id('b'), name: 'b', parentId: root.id });
    for (const r of [root, a, a1, b]) expect(await store().insert(r, at(0))).toBe('ok');
    expect([...(await store().revoke([a.id], at(1000)))].sort()).toEqual([a.id, a1.id].sort());
    expect([...(await store().revoke([root.id], at(9000)))].sort()).toEqual([root.id, b.id].sort());
    const leaf = await store().readChain(a1.id);
    expect(leaf?.map((r) => r.revokedAt?.getTime())).toEqual([at(1000).getTime(), at(1000).getTime(), at(9000).getTime()]);
    expect(await store().revoke([root.id], at(20_000))).toEqual([]);
  });

  it('revoke ignores unknown ids', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('real') }), at(0))).toBe('ok');
    expect(await store().revoke([f.id('ghost')], at(1000))).toEqual([]);
    expect(await store().revoke([f.id('ghost'), f.id('real')], at(1000))).toEqual([f.id('real')]);
    expect(await store().revoke([], at(1000))).toEqual([]);
  });

  it('race: 30 parallel inserts of one name give exactly one ok', async (store) => {
    const f = fixtures();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => store().insert(f.record({ id: f.id(`n${i}`), name: 'deploy' }), at(0))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'name_taken')).toHaveLength(29);
    expect(await store().listByOwner(f.owner())).toHaveLength(1);
  });

  it('race: revoking a parent while a child is inserted never leaves an active child of a revoked parent', async (store) => {
    const f = fixtures();
    for (let round = 0; round < 12; round++) {
      const parent = f.record({ id: f.id(`p${round}`), name: `p${round}` });
      const child = f.record({ id: f.id(`c${round}`), name: `c${round}`, parentId: parent.id });
      expect(await store().insert(parent, at(0))).toBe('ok');
      // Alternate which call starts first, to try both interleavings.
      const [inserted] =
        round % 2 === 0
          ? await Promise.all([store().insert(child, at(1000)), store().revoke([parent.id], at(1000))])
          : await Promise.all([store().revoke([parent.id], at(1000)), store().insert(child, at(1000))]).then(([, r]) => [r] as const);
      expect<InsertResult[]>(['ok', 'parent_inactive']).toContain(inserted);
      const chain = await store().readChain(child.id);
      if (inserted === 'parent_inactive') expect(chain).toBeNull();
      else expect(chain?.[0]?.revokedAt).not.toBeNull();
      expect(chain === null || chain.some((r) => r.revokedAt !== null)).toBe(true);
    }
  });
}
