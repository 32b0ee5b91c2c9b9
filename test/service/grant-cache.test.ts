import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ValidationError } from '../../src/errors';
import { authorize } from '../../src/policy';
import { GrantCache, rolesKey } from '../../src/service/grant-cache';
import { setup } from './fixture';

describe('rolesKey', () => {
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
    const names = fc.string({ unit: fc.constantFrom('a', 'b', '"', '=', ';', '|', ':', '\\', '/', 'r', 'o') , maxLength: 4 });
    const map = fc.dictionary(names, fc.constantFrom('viewer', 'editor', 'owner'), { maxKeys: 3 });
    const roles = fc.record({ orgs: map, repos: map }, { requiredKeys: [] });
    fc.assert(
      fc.property(roles, roles, (a, b) => {
        const canon = (r: Record<string, Record<string, string> | undefined>): string =>
          JSON.stringify(['orgs', 'repos'].map((k) => (r[k] === undefined ? null : Object.entries(r[k] as object).sort())));
        const same = canon(a) === canon(b);
        if (!same) expect(rolesKey(a)).not.toBe(rolesKey(b));
      }),
    );
  });

  it('hostile: getters, Proxies, class instances, unknown roles and extra keys are never cached', () => {
    const getter = { orgs: Object.defineProperty({}, 'acme', { get: () => 'owner', enumerable: true }) };
    expect(rolesKey(getter)).toBeUndefined();
    expect(rolesKey(new Proxy({ orgs: {} }, {}))).toBe(rolesKey({ orgs: {} })); // a transparent Proxy reads as plain data
    expect(rolesKey(new Proxy({}, { ownKeys: () => { throw new Error('trap'); } }))).toBeUndefined();
    expect(rolesKey({ orgs: { acme: 'god' } })).toBeUndefined();
    expect(rolesKey({ orgs: {}, extra: 1 })).toBeUndefined();
    expect(rolesKey(JSON.parse('{"orgs":{"__proto__":"owner"}}'))).toBe('o:__proto__=owner;|r:-');
    expect(rolesKey(new (class { orgs = {}; })())).toBeUndefined();
    expect(rolesKey({ orgs: undefined })).toBeUndefined();
  });
});

describe('GrantCache', () => {
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
    const s = await setup();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'ci' });
    expect(s.auth.authorize(await s.auth.authenticate(token), 'acme/w', 'repo:admin')).toEqual({ allowed: true });
    s.roles.set('alice', { orgs: { acme: 'viewer' } });
    expect(s.auth.authorize(await s.auth.authenticate(token), 'acme/w', 'repo:admin')).toEqual({ allowed: false, reason: 'role' });
  });
});
