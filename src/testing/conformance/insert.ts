/**
 * Conformance cases for `insert`, `readChain` and `listByOwner`: every field
 * survives the round trip (a bound key too), ancestors come nearest first, and an insert checks
 * its name (T7) and its parent atomically.
 * @module
 */
import { expect } from 'vitest';
import type { TokenRecord, TokenStore } from '../../stores';
import { at, DAY, fixtures, HOUR } from './fixtures';

/**
 * @internal Register the insert and read cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * insertCases((name, run) => cases.push({ name, run: (s) => run(() => s) }));
 * ```
 */
export function insertCases(it: (name: string, run: (store: () => TokenStore) => Promise<void>) => void): void {
  const ids = (records: readonly TokenRecord[] | null): string[] => (records ?? []).map((r) => r.id);

  it('insert then readChain returns every field (dates, scopes array and null)', async (store) => {
    const f = fixtures();
    const parent = f.record({
      id: f.id('p'),
      description: 'deploys from CI',
      scopes: [
        { resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**', 'Page/*'] },
        { resource: 'acme', permissions: ['org:read'] },
        { permissions: ['repo:read'] },
      ],
      createdAt: at(1000),
      expiresAt: at(7 * DAY),
      committerIdentity: 'svc:default/users/Identity/bot',
    });
    const child = f.record({
      id: f.id('c'),
      kind: 'component',
      name: 'action-1',
      scopes: null,
      parentId: parent.id,
      createdAt: at(2000),
      expiresAt: at(HOUR),
    });
    expect(await store().insert(parent, at(1000))).toBe('ok');
    expect(await store().insert(child, at(2000))).toBe('ok');
    const chain = await store().readChain(child.id);
    expect(chain).toHaveLength(2);
    for (const [got, want] of [
      [chain?.[0], child],
      [chain?.[1], parent],
    ] as const) {
      expect(got).toBeDefined();
      const g = got as TokenRecord;
      // lastUsedAt is optional in a record: absent and null both mean "never used".
      expect({ ...g, createdAt: g.createdAt.getTime(), expiresAt: g.expiresAt.getTime(), lastUsedAt: g.lastUsedAt ?? null }).toEqual({
        ...want,
        createdAt: want.createdAt.getTime(),
        expiresAt: want.expiresAt.getTime(),
        lastUsedAt: null,
      });
      expect(g.createdAt).toBeInstanceOf(Date);
      expect(g.revokedAt).toBeNull();
    }
    expect(chain?.[0]?.scopes).toBeNull();
    expect(chain?.[1]?.scopes).toEqual(parent.scopes);
  });

  it('a bound key survives the round trip (readChain and listByOwner); a record without one reads as unbound', async (store) => {
    const f = fixtures();
    const boundKey = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
    const bound = f.record({ id: f.id('bound'), name: 'bound', boundKey });
    const child = f.record({ id: f.id('child'), name: 'child', parentId: bound.id, boundKey });
    const plain = f.record({ id: f.id('plain'), name: 'plain' });
    for (const r of [bound, child, plain]) expect(await store().insert(r, at(0))).toBe('ok');
    expect((await store().readChain(child.id))?.map((r) => r.boundKey)).toEqual([boundKey, boundKey]);
    expect((await store().readChain(plain.id))?.[0]?.boundKey ?? null).toBeNull();
    const listed = await store().listByOwner(bound.ownerId);
    expect(listed.find((r) => r.id === bound.id)?.boundKey).toBe(boundKey);
    expect(listed.find((r) => r.id === plain.id)?.boundKey ?? null).toBeNull();
  });

  it('readChain lists the record and its ancestors, nearest first', async (store) => {
    const f = fixtures();
    const root = f.record({ id: f.id('root'), name: 'root' });
    const mid = f.record({ id: f.id('mid'), name: 'mid', parentId: root.id });
    const leaf = f.record({ id: f.id('leaf'), name: 'leaf', parentId: mid.id });
    for (const r of [root, mid, leaf]) expect(await store().insert(r, at(0))).toBe('ok');
    expect(ids(await store().readChain(leaf.id))).toEqual([leaf.id, mid.id, root.id]);
    expect(ids(await store().readChain(mid.id))).toEqual([mid.id, root.id]);
    expect(ids(await store().readChain(root.id))).toEqual([root.id]);
  });

  it('readChain of an unknown id is null', async (store) => {
    const f = fixtures();
    expect(await store().readChain(f.id('missing'))).toBeNull();
  });

  it('T7: name_taken for a second active PAT of the same name and owner; nothing stored', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('a') }), at(0))).toBe('ok');
    expect(await store().insert(f.record({ id: f.id('b') }), at(1000))).toBe('name_taken');
    expect(await store().readChain(f.id('b'))).toBeNull();
    expect(ids(await store().listByOwner(f.owner()))).toEqual([f.id('a')]);
  });

  it('T7: the same name is free for another owner', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('a'), ownerId: f.owner('alice') }), at(0))).toBe('ok');
    expect(await store().insert(f.record({ id: f.id('b'), ownerId: f.owner('bob') }), at(0))).toBe('ok');
  });

  it('T7: a name is free again once its PAT is revoked', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('a') }), at(0))).toBe('ok');
    await store().revoke([f.id('a')], at(1000));
    expect(await store().insert(f.record({ id: f.id('b') }), at(2000))).toBe('ok');
  });

  it('T7: a name is free again once its PAT has expired at now (now >= expiresAt)', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('a'), expiresAt: at(HOUR) }), at(0))).toBe('ok');
    expect(await store().insert(f.record({ id: f.id('b') }), at(HOUR - 1000))).toBe('name_taken');
    expect(await store().insert(f.record({ id: f.id('c') }), at(HOUR))).toBe('ok');
  });

  it('T7: component records take no names and are never refused for a name', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('comp1'), kind: 'component' }), at(0))).toBe('ok');
    expect(await store().insert(f.record({ id: f.id('pat') }), at(0))).toBe('ok');
    expect(await store().insert(f.record({ id: f.id('comp2'), kind: 'component' }), at(0))).toBe('ok');
  });

  it('parent_inactive when the parent is missing; nothing stored', async (store) => {
    const f = fixtures();
    const child = f.record({ id: f.id('child'), parentId: f.id('ghost') });
    expect(await store().insert(child, at(0))).toBe('parent_inactive');
    expect(await store().readChain(child.id)).toBeNull();
  });

  it('parent_inactive when the parent is revoked', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('p'), name: 'p' }), at(0))).toBe('ok');
    await store().revoke([f.id('p')], at(1000));
    expect(await store().insert(f.record({ id: f.id('c'), parentId: f.id('p') }), at(2000))).toBe('parent_inactive');
    expect(await store().readChain(f.id('c'))).toBeNull();
  });

  it('parent_inactive when the parent has expired at now; ok just before', async (store) => {
    const f = fixtures();
    expect(await store().insert(f.record({ id: f.id('p'), name: 'p', expiresAt: at(HOUR) }), at(0))).toBe('ok');
    expect(await store().insert(f.record({ id: f.id('late'), name: 'late', parentId: f.id('p') }), at(HOUR))).toBe('parent_inactive');
    expect(await store().insert(f.record({ id: f.id('early'), name: 'early', parentId: f.id('p') }), at(HOUR - 1000))).toBe('ok');
  });

  it('a duplicate id is rejected and the stored record is unchanged', async (store) => {
    const f = fixtures();
    const first = f.record({ id: f.id('x'), name: 'first' });
    expect(await store().insert(first, at(0))).toBe('ok');
    await expect(store().insert(f.record({ id: first.id, name: 'second', ownerId: f.owner('other') }), at(0))).rejects.toBeInstanceOf(
      Error,
    );
    const chain = await store().readChain(first.id);
    expect(chain?.[0]?.name).toBe('first');
    expect(chain?.[0]?.ownerId).toBe(f.owner());
  });

  it('listByOwner returns every kind and status, in creation order, and only that owner', async (store) => {
    const f = fixtures();
    const active = f.record({ id: f.id('1-active'), name: 'active', createdAt: at(0) });
    const revoked = f.record({ id: f.id('2-revoked'), name: 'revoked', createdAt: at(1000) });
    const expired = f.record({ id: f.id('3-expired'), name: 'expired', createdAt: at(2000), expiresAt: at(HOUR) });
    const component = f.record({ id: f.id('4-comp'), kind: 'component', name: 'c', parentId: active.id, createdAt: at(3000) });
    const other = f.record({ id: f.id('5-other'), ownerId: f.owner('someone-else') });
    // Inserted out of id order, so creation order cannot be confused with id order.
    for (const r of [active, revoked, expired, component, other]) expect(await store().insert(r, at(3000))).toBe('ok');
    await store().revoke([revoked.id], at(4000));
    const list = await store().listByOwner(f.owner());
    expect(ids(list)).toEqual([active.id, revoked.id, expired.id, component.id]);
    expect(list[1]?.revokedAt?.getTime()).toBe(at(4000).getTime());
    expect(await store().listByOwner(f.owner('nobody'))).toEqual([]);
  });
}
