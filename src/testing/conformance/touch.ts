/**
 * Conformance cases for the optional `TokenStore.touch` (last-used times). A
 * store without `touch` passes them: it simply shows no last-used time.
 * @module
 */
import { expect } from 'vitest';
import type { TokenRecord, TokenStore } from '../../stores';
import { at, fixtures } from './fixtures';

/**
 * @internal Register the `touch` cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * touchCases((name, run) => cases.push({ name, run: (s) => run(() => s) }));
 * ```
 */
export function touchCases(it: (name: string, run: (store: () => TokenStore) => Promise<void>) => void): void {
  const lastUsed = (r: TokenRecord | undefined): number | null =>
    r?.lastUsedAt instanceof Date ? r.lastUsedAt.getTime() - at(0).getTime() : null;

  it('touch (optional): sets lastUsedAt of each id, seen by readChain and listByOwner; unknown ids ignored', async (store) => {
    const s = store();
    if (s.touch === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a'), name: 'a' });
    const b = f.record({ id: f.id('b'), name: 'b' });
    const c = f.record({ id: f.id('c'), name: 'c' });
    for (const r of [a, b, c]) expect(await s.insert(r, at(0))).toBe('ok');
    await s.touch([a.id, b.id, f.id('nobody')], at(5000));
    expect(lastUsed((await s.readChain(a.id))?.[0])).toBe(5000);
    expect(lastUsed((await s.readChain(b.id))?.[0])).toBe(5000);
    expect(lastUsed((await s.readChain(c.id))?.[0])).toBeNull();
    const listed = await s.listByOwner(f.owner());
    expect(listed.map(lastUsed)).toEqual([5000, 5000, null]);
    expect(await s.readChain(f.id('nobody'))).toBeNull();
  });

  it('touch (optional): never moves lastUsedAt back (a late batch), and moves it forward', async (store) => {
    const s = store();
    if (s.touch === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a'), name: 'a' });
    expect(await s.insert(a, at(0))).toBe('ok');
    await s.touch([a.id], at(9000));
    await s.touch([a.id], at(4000));
    expect(lastUsed((await s.readChain(a.id))?.[0])).toBe(9000);
    await s.touch([a.id], at(12_000));
    expect(lastUsed((await s.readChain(a.id))?.[0])).toBe(12_000);
  });

  it('touch (optional): changes nothing else (revocation, expiry, scopes stay as they were)', async (store) => {
    const s = store();
    if (s.touch === undefined) return;
    const f = fixtures();
    const a = f.record({ id: f.id('a'), name: 'a', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    expect(await s.insert(a, at(0))).toBe('ok');
    expect(await s.revoke([a.id], at(1000))).toEqual([a.id]);
    const before = (await s.readChain(a.id))?.[0] as TokenRecord;
    await s.touch([a.id], at(2000));
    const after = (await s.readChain(a.id))?.[0] as TokenRecord;
    expect({ ...after, lastUsedAt: null }).toEqual({ ...before, lastUsedAt: null });
    expect(after.revokedAt?.getTime()).toBe(at(1000).getTime());
    expect(lastUsed(after)).toBe(2000);
  });
}
