/**
 * The shared record views of the request path (src/stores/views.ts): the same
 * frozen view while a record is unchanged, a new one the moment anything about
 * it changes (revocation above all), and never handed out by the public reads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryTokenStore, SHARED_CHAIN, type SharedChainSource, type TokenRecord } from '../../src/stores';
import { LATER, NOW } from '../support/clock';
import { record } from '../support/record';

const sharedOf = (store: MemoryTokenStore, id: string): readonly TokenRecord[] | null | undefined =>
  (store as SharedChainSource)[SHARED_CHAIN]?.(id);

describe('shared record views (request path)', () => {
  it('hands out one frozen view per unchanged record, and public reads still copy', async () => {
    const store = new MemoryTokenStore();
    await store.insert(record({ id: 'p' }), NOW);
    await store.insert(record({ id: 'c', parentId: 'p', name: 'child' }), NOW);
    const a = sharedOf(store, 'c');
    const b = sharedOf(store, 'c');
    expect(a?.map((r) => r.id)).toEqual(['c', 'p']);
    expect(a?.[0]).toBe(b?.[0]);
    expect(a?.[1]).toBe(b?.[1]);
    expect(Object.isFrozen(a?.[0])).toBe(true);
    const copy = (await store.readChain('c'))?.[0];
    expect(copy).not.toBe(a?.[0]);
    expect(store.readChainSync('c')?.[0]).not.toBe(a?.[0]);
    expect(sharedOf(store, 'nope')).toBeNull();
  });

  it('a revoked parent is seen on the very next shared read (no stale view)', async () => {
    const store = new MemoryTokenStore();
    await store.insert(record({ id: 'p' }), NOW);
    await store.insert(record({ id: 'c', parentId: 'p', name: 'child' }), NOW);
    expect(sharedOf(store, 'c')?.[1]?.revokedAt).toBeNull();
    await store.revoke(['p'], LATER);
    const after = sharedOf(store, 'c');
    expect(after?.[0]?.revokedAt?.getTime()).toBe(LATER.getTime());
    expect(after?.[1]?.revokedAt?.getTime()).toBe(LATER.getTime());
  });

  it('last use, addresses and expiry warnings make a new view too', async () => {
    const store = new MemoryTokenStore();
    await store.insert(record({ id: 't', kind: 'pat', expiresAt: new Date(NOW.getTime() + 86_400_000) }), NOW);
    const first = sharedOf(store, 't')?.[0];
    await store.touch(['t'], LATER);
    const touched = sharedOf(store, 't')?.[0];
    expect(touched).not.toBe(first);
    expect(touched?.lastUsedAt?.getTime()).toBe(LATER.getTime());
    await store.recordUse([{ id: 't', address: '203.0.113.7', userAgent: null }], new Date(LATER.getTime() + 1000));
    const used = sharedOf(store, 't')?.[0];
    expect(used?.usedFrom?.[0]?.address).toBe('203.0.113.7');
    await store.markExpiring(7 * 86_400, NOW, 10);
    expect(sharedOf(store, 't')?.[0]?.expiryWarnings).toEqual([7 * 86_400]);
  });

  it('declines when readChain is replaced on the instance, as readChainSync does', async () => {
    const store = new MemoryTokenStore();
    await store.insert(record({ id: 't' }), NOW);
    store.readChain = () => Promise.resolve(null);
    expect(sharedOf(store, 't')).toBeUndefined();
  });

  it('property: after any sequence of revocations, every shared view agrees with a fresh copy', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 12 }), async (revokes) => {
        const store = new MemoryTokenStore();
        // A chain t0 <- t1 <- ... <- t5 (t5's chain holds every record).
        for (let i = 0; i <= 5; i++)
          await store.insert(record({ id: `t${i}`, name: `n${i}`, parentId: i === 0 ? null : `t${i - 1}` }), NOW);
        for (const i of revokes) {
          sharedOf(store, 't5');
          await store.revoke([`t${i}`], new Date(LATER.getTime() + i * 1000));
          const shared = sharedOf(store, 't5') ?? [];
          const fresh = (await store.readChain('t5')) ?? [];
          expect(shared.map((r) => r.revokedAt?.getTime() ?? null)).toEqual(fresh.map((r) => r.revokedAt?.getTime() ?? null));
        }
      }),
      { numRuns: 50 },
    );
  });
});
