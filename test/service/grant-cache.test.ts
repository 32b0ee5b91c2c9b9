import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ValidationError } from '../../src/errors';
import { authorize, compileLayer } from '../../src/core/policy';
import type { Scope } from '../../src/core/scopes';
import { GrantCache, LayerCache, rolesSnapshot, sameRoles } from '../../src/service/authenticate/caches/grant-cache';
import { isDeepFrozen, pinScopes, sameScopes } from '../../src/service/authenticate/caches/scopes-pin';
import { testAuth } from '../support/auth';

/** Canonical text of a snapshot: equal text means equal roles. */
function rolesKey(roles: unknown): string | undefined {
  const snap = rolesSnapshot(roles);
  return snap === undefined ? undefined : JSON.stringify(snap);
}

describe('rolesSnapshot', () => {
  it('is the same for equal plain roles and differs when a role changes', () => {
    expect(rolesKey({ orgs: { acme: 'editor' } })).toBe(rolesKey({ orgs: { acme: 'editor' } }));
    expect(rolesKey({ orgs: { acme: 'editor' } })).not.toBe(rolesKey({ orgs: { acme: 'viewer' } }));
    expect(rolesKey({ orgs: { acme: 'editor' } })).not.toBe(rolesKey({ repos: { acme: 'editor' } }));
    expect(rolesKey({})).toBe(rolesKey({}));
  });

  it('hostile: delimiter look-alikes in keys cannot make two role maps share a key', () => {
    expect(rolesKey({ orgs: { 'a=owner;b': 'viewer' } })).not.toBe(rolesKey({ orgs: { a: 'owner', b: 'viewer' } }));
    expect(rolesKey({ orgs: { '"a"': 'viewer' } })).not.toBe(rolesKey({ orgs: { a: 'viewer' } }));
    expect(rolesKey({ orgs: { 'a|r:b': 'viewer' } })).not.toBe(rolesKey({ orgs: { a: 'viewer' }, repos: { b: 'viewer' } }));
  });

  it('hostile: different role maps never share a key (property)', () => {
    const names = fc.string({ unit: fc.constantFrom('a', 'b', '"', '=', ';', '|', ':', '\\', '/', 'r', 'o'), maxLength: 4 });
    const map = fc.dictionary(names, fc.constantFrom('viewer', 'editor', 'owner'), { maxKeys: 3 });
    const roles = fc.record({ orgs: map, repos: map }, { requiredKeys: [] });
    fc.assert(
      fc.property(roles, roles, (a, b) => {
        const canon = (r: Record<string, Record<string, string> | undefined>): string =>
          JSON.stringify(['orgs', 'repos'].map((k) => (r[k] === undefined ? null : Object.entries(r[k] as object).sort())));
        const same = canon(a) === canon(b);
        if (!same) expect(rolesKey(a)).not.toBe(rolesKey(b));
        const snapA = rolesSnapshot(a);
        expect(snapA).toBeDefined();
        expect(sameRoles(a, snapA as never)).toBe(true);
        // Only equal roles may reuse a grant built for `a`.
        if (sameRoles(b, snapA as never)) expect(canon(b)).toBe(canon(a));
      }),
    );
  });

  it('hostile: getters, Proxies, class instances, unknown roles and extra keys are never cached', () => {
    const getter = { orgs: Object.defineProperty({}, 'acme', { get: () => 'owner', enumerable: true }) };
    expect(rolesKey(getter)).toBeUndefined();
    expect(rolesKey(new Proxy({ orgs: {} }, {}))).toBe(rolesKey({ orgs: {} })); // a transparent Proxy reads as plain data
    expect(
      rolesKey(
        new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error('trap');
            },
          },
        ),
      ),
    ).toBeUndefined();
    expect(rolesKey({ orgs: { acme: 'god' } })).toBeUndefined();
    expect(rolesKey({ orgs: {}, extra: 1 })).toBeUndefined();
    expect(rolesKey(JSON.parse('{"orgs":{"__proto__":"owner"}}'))).toBe('["orgs",1,"__proto__","owner"]');
    expect(
      rolesKey(
        new (class {
          orgs = {};
        })(),
      ),
    ).toBeUndefined();
    expect(rolesKey({ orgs: undefined })).toBeUndefined();
  });
});

describe('sameRoles', () => {
  it('hostile: a getter, extra key, unknown role or prefix of the snapshot never matches', () => {
    const snap = rolesSnapshot({ orgs: { acme: 'editor' }, repos: { 'acme/web': 'owner' } }) as never;
    expect(sameRoles({ orgs: { acme: 'editor' }, repos: { 'acme/web': 'owner' } }, snap)).toBe(true);
    expect(sameRoles({ orgs: { acme: 'editor' } }, snap)).toBe(false);
    expect(sameRoles({ orgs: { acme: 'editor' }, repos: { 'acme/web': 'owner' }, extra: 1 }, snap)).toBe(false);
    expect(
      sameRoles(
        { orgs: Object.defineProperty({}, 'acme', { get: () => 'editor', enumerable: true }), repos: { 'acme/web': 'owner' } },
        snap,
      ),
    ).toBe(false);
    expect(sameRoles({ orgs: { acme: 'editor', x: 'god' }, repos: { 'acme/web': 'owner' } }, snap)).toBe(false);
    expect(
      sameRoles(
        new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error('trap');
            },
          },
        ),
        snap,
      ),
    ).toBe(false);
  });
});

describe('GrantCache and getters', () => {
  it('a top-level getter is read once per comparison, as createGrant reads it, and never makes a cache entry', () => {
    const cache = new GrantCache(10);
    const viewer = cache.get('t1', { orgs: { acme: 'viewer' } }, null, () => []);
    let reads = 0;
    const sameAsViewer = {
      get orgs() {
        reads++;
        return { acme: 'viewer' };
      },
    };
    // Equal to the plain roles the entry was made from: the entry's grant, after a single read.
    expect(cache.get('t1', sameAsViewer as never, null, () => [])).toBe(viewer);
    expect(reads).toBe(1);
    const owner = {
      get orgs() {
        return { acme: 'owner' };
      },
    };
    // Not equal: a grant of its own, built from what it answered, and never kept.
    const g = cache.get('t1', owner as never, null, () => []);
    expect(authorize(g, 'acme/w', 'repo:admin')).toEqual({ allowed: true });
    expect(cache.get('t1', owner as never, null, () => [])).not.toBe(g);
    expect(
      authorize(
        cache.get('t1', { orgs: { acme: 'viewer' } }, null, () => []),
        'acme/w',
        'repo:admin',
      ),
    ).toEqual({
      allowed: false,
      reason: 'role',
    });
  });

  it('attack: a getter that answers "viewer" to the comparison and "owner" afterwards gets the viewer grant', () => {
    const cache = new GrantCache(10);
    const viewer = cache.get('t1', { orgs: { acme: 'viewer' } }, null, () => []);
    let reads = 0;
    const turncoat = {
      get orgs() {
        return ++reads === 1 ? { acme: 'viewer' } : { acme: 'owner' };
      },
    };
    const g = cache.get('t1', turncoat as never, null, () => []);
    expect(g).toBe(viewer);
    expect(authorize(g, 'acme/w', 'repo:admin')).toEqual({ allowed: false, reason: 'role' });
  });
});

describe('GrantCache', () => {
  it('stays bounded and keeps answering correctly after evictions', () => {
    const cache = new GrantCache(3);
    const roles = (r: 'viewer' | 'editor') => ({ orgs: { acme: r } });
    for (let i = 0; i < 20; i++) {
      const g = cache.get(`t${i % 5}`, roles(i % 2 === 0 ? 'viewer' : 'editor'), null, () => []);
      expect(authorize(g, 'acme/w', 'repo:write')).toEqual(i % 2 === 0 ? { allowed: false, reason: 'role' } : { allowed: true });
    }
  });

  it('reuses a grant for equal inputs and rebuilds when the roles change', () => {
    const cache = new GrantCache(10);
    const a = cache.get('t1', { orgs: { acme: 'editor' } }, null, () => []);
    expect(cache.get('t1', { orgs: { acme: 'editor' } }, null, () => [])).toBe(a);
    const b = cache.get('t1', { orgs: { acme: 'viewer' } }, null, () => []);
    expect(b).not.toBe(a);
    expect(authorize(b, 'acme/w', 'repo:write')).toEqual({ allowed: false, reason: 'role' });
    expect(cache.get('t2', { orgs: { acme: 'editor' } }, null, () => [])).not.toBe(a);
  });

  it('hostile roles still reach createGrant and fail there', () => {
    const cache = new GrantCache(10);
    expect(() => cache.get(null, JSON.parse('{"orgs":{"__proto__":"owner"}}'), null, () => [])).toThrow(ValidationError);
    expect(() => cache.get(null, { orgs: { acme: 'god' as never } }, null, () => [])).toThrow(ValidationError);
  });

  it('A3: a role change takes effect on the next authenticate of the same token', async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci' });
    expect(s.auth.authorize(await s.auth.authenticate(token), 'acme/w', 'repo:admin')).toEqual({ allowed: true });
    s.roles.set('alice', { orgs: { acme: 'viewer' } });
    expect(s.auth.authorize(await s.auth.authenticate(token), 'acme/w', 'repo:admin')).toEqual({ allowed: false, reason: 'role' });
  });
});

describe('cache bounds (issue 13: floods)', () => {
  it('GrantCache: thousands of distinct tokens and role variants never hold more than the bound', () => {
    const cache = new GrantCache(64);
    const roles = ['viewer', 'editor', 'admin', 'owner', 'viewer'] as const;
    for (let i = 0; i < 5000; i++) {
      cache.get(`flood-${i}`, { orgs: { acme: roles[i % 4] as 'viewer' } }, null, () => []);
      // A few tokens cycle through role variants: each variant counts against the bound.
      cache.get(`hot-${i % 3}`, { orgs: { [`o${i % 7}`]: roles[i % 5] as 'viewer' } }, null, () => []);
      expect(cache.size).toBeLessThanOrEqual(64);
    }
    expect(cache.size).toBe(64);
  });

  it('GrantCache: size 0 caches nothing and still decides', () => {
    const cache = new GrantCache(0);
    const g = cache.get('t', { orgs: { acme: 'viewer' } }, null, () => []);
    expect(cache.size).toBe(0);
    expect(authorize(g, 'acme/w', 'repo:read')).toEqual({ allowed: true });
    expect(cache.get('t', { orgs: { acme: 'viewer' } }, null, () => [])).not.toBe(g);
  });

  it('LayerCache: thousands of distinct token ids never hold more than the bound, and a layer is reused while held', () => {
    const layers = new LayerCache(100);
    const scopes = [{ resource: 'acme/web', permissions: ['repo:read' as const] }];
    for (let i = 0; i < 3000; i++) {
      layers.get(`t${i}`, scopes);
      expect(layers.size).toBeLessThanOrEqual(100);
    }
    expect(layers.get('keep', scopes)).toBe(layers.get('keep', scopes));
    const none = new LayerCache(0);
    none.get('keep', scopes);
    expect(none.size).toBe(0);
  });

  it('createAuth validates the cache bounds when it builds', async () => {
    for (const bad of [-1, 1.5, 1_000_001, '10', Number.NaN]) {
      for (const name of ['signatures', 'layers', 'grants'])
        await expect(testAuth({ cache: { [name]: bad as never } })).rejects.toMatchObject({
          code: 'validation',
          issues: [{ pathText: `cache.${name}` }],
        });
    }
    // The old per-cache options are gone: a leftover one is refused, not silently ignored.
    await expect(testAuth({ layerCacheSize: 0 } as never)).rejects.toMatchObject({ code: 'validation' });
    await expect(testAuth({ cache: { sizes: 0 } as never })).rejects.toMatchObject({ issues: [{ pathText: 'cache.sizes' }] });
    await expect(testAuth({ cache: 0 as never })).rejects.toMatchObject({ issues: [{ pathText: 'cache' }] });
    await expect(testAuth({ cache: { layers: 0, grants: 0 } })).resolves.toBeDefined();
  });

  it('with every cache off (0) decisions are unchanged', async () => {
    const s = await testAuth({ cache: { layers: 0, grants: 0, signatures: 0 } });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    for (let i = 0; i < 3; i++) {
      const p = await s.auth.authenticate(token);
      expect(s.auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
      expect(s.auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    }
  });
});

describe('rolesSnapshot sees what createGrant reads', () => {
  it('hostile: a hidden (non-enumerable) orgs map is not mistaken for no roles', () => {
    const hidden = Object.defineProperty({}, 'orgs', { value: { acme: 'owner' }, enumerable: false });
    expect(rolesKey(hidden)).not.toBe(rolesKey({}));
    const cache = new GrantCache(10);
    const owner = cache.get('t1', hidden as never, null, () => []);
    expect(authorize(owner, 'acme/w', 'repo:admin')).toEqual({ allowed: true });
    // The same token with genuinely empty roles must not reuse the owner grant.
    expect(
      authorize(
        cache.get('t1', {}, null, () => []),
        'acme/w',
        'repo:read',
      ),
    ).toEqual({ allowed: false, reason: 'role' });
  });

  it('hostile: non-enumerable and symbol keys inside a role map are ignored by both', () => {
    const orgs = Object.defineProperty({ acme: 'viewer' }, 'evil', { value: 'owner', enumerable: false });
    (orgs as Record<symbol, string>)[Symbol('x')] = 'owner';
    const cache = new GrantCache(10);
    const g = cache.get('t1', { orgs } as never, null, () => []);
    expect(authorize(g, 'evil/w', 'repo:read')).toEqual({ allowed: false, reason: 'role' });
    expect(cache.get('t1', { orgs: { acme: 'viewer' } }, null, () => [])).toBe(g);
  });
});

describe('caches keyed on the scopes of each record too (issue 18, item 9: hand edits)', () => {
  const roles = { orgs: { acme: 'owner' as const } };
  const layersOf = (_c: unknown, scopes: readonly (readonly Scope[] | null)[]) =>
    scopes.flatMap((x) => (x === null ? [] : [compileLayer(x)]));
  const rw = (): Scope[] => [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }];
  const r = (): Scope[] => [{ resource: 'acme/web', permissions: ['repo:read'] }];

  it('GrantCache: equal scopes in new arrays reuse the grant; changed scopes build another at once', () => {
    const cache = new GrantCache(10);
    let built = 0;
    const counting = (c: unknown, scopes: readonly (readonly Scope[] | null)[]) => {
      built++;
      return layersOf(c, scopes);
    };
    const g = cache.get('t1', roles, [{ scopes: rw() }], counting);
    expect(cache.get('t1', roles, [{ scopes: rw() }], counting)).toBe(g);
    expect(built).toBe(1);
    const narrowed = cache.get('t1', roles, [{ scopes: r() }], counting);
    expect(narrowed).not.toBe(g);
    expect(authorize(narrowed, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    // The chain shape counts too: a parent link edited, a record turned to full access.
    expect(cache.get('t1', roles, [{ scopes: r() }, { scopes: null }], counting)).not.toBe(narrowed);
    expect(authorize(cache.get('t1', roles, [{ scopes: null }], counting), 'acme/web', 'repo:admin')).toEqual({ allowed: true });
  });

  it('GrantCache: an unfrozen scopes list changed in place by its owner is never trusted by identity', () => {
    const cache = new GrantCache(10);
    const mine: Scope[] = rw();
    const g = cache.get('t1', roles, [{ scopes: mine }], layersOf);
    expect(cache.get('t1', roles, [{ scopes: mine }], layersOf)).toBe(g);
    (mine as { permissions: string[] }[])[0]!.permissions = ['repo:read'];
    const after = cache.get('t1', roles, [{ scopes: mine }], layersOf);
    expect(authorize(after, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
  });

  it('LayerCache: a layer is reused for equal scopes only', () => {
    const layers = new LayerCache(10);
    const a = layers.get('t1', rw());
    expect(layers.get('t1', rw())).toBe(a);
    const b = layers.get('t1', r());
    expect(b).not.toBe(a);
    expect(layers.size).toBe(1);
  });

  it('sameScopes, isDeepFrozen and pinScopes', () => {
    expect(sameScopes(rw(), rw())).toBe(true);
    expect(sameScopes(rw(), r())).toBe(false);
    expect(sameScopes(null, [])).toBe(false);
    expect(sameScopes([{ permissions: ['repo:read'] }], [{ permissions: ['repo:read'], resource: undefined }])).toBe(false);
    expect(
      sameScopes([{ permissions: ['repo:read'], allowedMatches: ['a'] }], [{ permissions: ['repo:read'], allowedMatches: ['b'] }]),
    ).toBe(false);
    expect(sameScopes([{ permissions: ['repo:read'], bogus: 1 }], [{ permissions: ['repo:read'], bogus: 1 }])).toBe(false);
    const hostile = [
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error('trap');
          },
        },
      ),
    ];
    expect(sameScopes(hostile, hostile.slice())).toBe(false);
    expect(isDeepFrozen(rw())).toBe(false);
    const pinned = pinScopes(rw());
    expect(isDeepFrozen(pinned)).toBe(true);
    expect(sameScopes(pinned, rw())).toBe(true);
    const frozen = pinned;
    expect(pinScopes(frozen)).toBe(frozen);
    expect(pinScopes(null)).toBeNull();
  });
});
