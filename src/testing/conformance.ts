/**
 * The `TokenStore` conformance suite: the behaviour every store must have for
 * the service to be correct (T5-T7), as vitest tests that an adapter's own test
 * file registers with one call. Tests use a pinned clock, fresh ids and owners
 * per test (so a shared database table works without truncation) and no sleeps.
 * @module
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InsertResult, TokenRecord, TokenStore } from '../stores/types';
import { touchCases } from './conformance-touch';
import { at, DAY, fixtures, HOUR } from './fixtures';

/**
 * Options of {@link tokenStoreConformance}.
 *
 * @example
 * ```ts
 * const options: ConformanceOptions<PostgresTokenStore> = { cleanup: () => pool.end() };
 * ```
 */
export interface ConformanceOptions<S extends TokenStore = TokenStore> {
  /** Called after each test with the store the factory made (close pools, remove temp dirs). */
  cleanup?: (store: S) => Promise<void> | void;
}

/**
 * One conformance case: a name (the rule it checks) and a run against a fresh store.
 *
 * @example
 * ```ts
 * for (const c of conformanceCases()) await c.run(new MemoryTokenStore());
 * ```
 */
export interface ConformanceCase {
  readonly name: string;
  readonly run: (store: TokenStore) => Promise<void>;
}

/**
 * @internal The cases, as data, so that the suite itself can be tested against
 * deliberately broken stores (each must fail some case).
 *
 * @example
 * ```ts
 * conformanceCases().map((c) => c.name);
 * ```
 */
export function conformanceCases(): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const it = (name: string, run: (store: () => TokenStore) => Promise<void>): void => {
    cases.push({ name, run: (s) => run(() => s) });
  };
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
    const child = f.record({ id: f.id('c'), kind: 'component', name: 'action-1', scopes: null, parentId: parent.id, createdAt: at(2000), expiresAt: at(HOUR) });
    expect(await store().insert(parent, at(1000))).toBe('ok');
    expect(await store().insert(child, at(2000))).toBe('ok');
    const chain = await store().readChain(child.id);
    expect(chain).toHaveLength(2);
    for (const [got, want] of [[chain?.[0], child], [chain?.[1], parent]] as const) {
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
    await expect(store().insert(f.record({ id: first.id, name: 'second', ownerId: f.owner('other') }), at(0))).rejects.toBeInstanceOf(Error);
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
  touchCases(it);
  return cases;
}

/**
 * Register the conformance tests for a {@link TokenStore} implementation in the
 * current vitest file. `factory` is called before each test; `cleanup`, if
 * given, after each.
 *
 * @example
 * ```ts
 * // test/pg-store.test.ts
 * import { tokenStoreConformance } from 'svc-auth/testing';
 * import { PostgresTokenStore } from 'svc-auth/postgres';
 * tokenStoreConformance('PostgresTokenStore', () => new PostgresTokenStore({ pool }), { cleanup: () => undefined });
 * ```
 */
export function tokenStoreConformance<S extends TokenStore>(
  name: string,
  factory: () => S | Promise<S>,
  options: ConformanceOptions<S> = {},
): void {
  describe(`TokenStore conformance: ${name}`, () => {
    let current: S | undefined;
    beforeEach(async () => {
      current = await factory();
    });
    afterEach(async () => {
      const made = current;
      current = undefined;
      if (made !== undefined && options.cleanup) await options.cleanup(made);
    });
    for (const c of conformanceCases()) {
      it(c.name, async () => {
        expect(current, 'the factory made no store').toBeDefined();
        await c.run(current as S);
      });
    }
  });
}
