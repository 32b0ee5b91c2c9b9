import { describe, it, expect } from 'vitest';
import { authorize, createGrant, compileLayer, CompiledLayer, Grant } from '../../../src/core/policy';
import { ALLOW, DENY_ROLE } from '../../../src/core/policy/decision';
import { ValidationError } from '../../../src/errors';
import type { Scope } from '../../../src/core/scopes';
import { pathsOf } from '../../support/errors';

const anyInput = (v: unknown) => () => createGrant(v as never);

describe('createGrant: the input object', () => {
  it('builds a frozen Grant', () => {
    const g = createGrant({ roles: {} });
    expect(g).toBeInstanceOf(Grant);
    expect(Object.isFrozen(g)).toBe(true);
  });

  it('refuses a non-object input, missing roles and unknown keys', () => {
    expect(pathsOf(anyInput(undefined))).toEqual(['']);
    expect(pathsOf(anyInput([]))).toEqual(['']);
    expect(pathsOf(anyInput({}))).toEqual(['roles']);
    expect(pathsOf(anyInput({ roles: {}, layer: [] }))).toEqual(['layer']);
    expect(pathsOf(anyInput({ roles: { org: { acme: 'owner' } } }))).toEqual(['roles.org']);
  });

  it('a Grant cannot be built with new', () => {
    expect(() => new Grant(Symbol('x'), { exact: new Map(), repoDefault: new Map(), seen: new Map() })).toThrow(ValidationError);
    expect(() => new CompiledLayer(Symbol('x'), { global: null, orgs: new Map(), repos: new Map() })).toThrow(ValidationError);
  });
});

describe('createGrant: hostile role maps', () => {
  it('attack: __proto__ keys from JSON are refused, never reach a prototype', () => {
    const orgs = JSON.parse('{"__proto__": "owner"}') as Record<string, 'owner'>;
    expect(pathsOf(() => createGrant({ roles: { orgs } }))).toEqual(['roles.orgs.__proto__']);
    const repos = JSON.parse('{"__proto__": "owner"}') as Record<string, 'owner'>;
    expect(pathsOf(() => createGrant({ roles: { repos } }))).toEqual(['roles.repos.__proto__']);
    expect(({} as Record<string, unknown>)['acme']).toBeUndefined();
  });

  it('attack: an object literal __proto__ (a changed prototype) is refused', () => {
    const orgs = { __proto__: { acme: 'owner' } } as unknown as Record<string, 'owner'>;
    expect(pathsOf(() => createGrant({ roles: { orgs } }))).toEqual(['roles.orgs']);
  });

  it('refuses unknown role names, role shorthands and other cases', () => {
    const paths = pathsOf(() => createGrant({ roles: { orgs: { a: 'boss', b: 'Owner', c: 'role:owner', d: null, e: 1 } } as never }));
    expect(paths).toEqual(['roles.orgs.a', 'roles.orgs.b', 'roles.orgs.c', 'roles.orgs.d', 'roles.orgs.e']);
  });

  it('refuses bad org and repo keys', () => {
    const paths = pathsOf(() =>
      createGrant({
        roles: { orgs: { 'acme/web': 'owner', '-x': 'owner', '': 'owner' }, repos: { acme: 'owner', 'a/b/c': 'owner', 'a/': 'owner' } },
      }),
    );
    expect(paths).toEqual([
      'roles.orgs["acme/web"]',
      'roles.orgs.-x',
      'roles.orgs[""]',
      'roles.repos.acme',
      'roles.repos["a/b/c"]',
      'roles.repos["a/"]',
    ]);
  });

  it('refuses keys that differ only in case with different roles; accepts them with the same role', () => {
    expect(pathsOf(() => createGrant({ roles: { orgs: { acme: 'viewer', ACME: 'owner' } } }))).toEqual(['roles.orgs.ACME']);
    const g = createGrant({ roles: { orgs: { acme: 'viewer', ACME: 'viewer' } } });
    expect(authorize(g, 'acme/x', 'repo:read')).toBe(ALLOW);
  });

  it('refuses a Map, an array or a class instance where a role map belongs', () => {
    expect(pathsOf(() => createGrant({ roles: { orgs: new Map([['acme', 'owner']]) } } as never))).toEqual(['roles.orgs']);
    expect(pathsOf(() => createGrant({ roles: { repos: [] } } as never))).toEqual(['roles.repos']);
    expect(pathsOf(() => createGrant({ roles: null } as never))).toEqual(['roles']);
  });

  it('attack: a getter is not called and its role not trusted', () => {
    let calls = 0;
    const orgs = Object.defineProperty({}, 'acme', {
      enumerable: true,
      get: () => {
        calls++;
        return 'owner';
      },
    });
    expect(pathsOf(() => createGrant({ roles: { orgs } }))).toEqual(['roles.orgs.acme']);
    expect(calls).toBe(0);
  });

  it('attack: a Proxy role map whose traps throw ends as ValidationError, not a raw TypeError', () => {
    const boom = new Proxy(
      {},
      {
        ownKeys() {
          throw new TypeError('boom');
        },
        getPrototypeOf: () => Object.prototype,
      },
    );
    expect(() => createGrant({ roles: { orgs: boom } })).toThrow(ValidationError);
    expect(() =>
      createGrant(
        new Proxy(
          { roles: {} },
          {
            get() {
              throw new Error('boom');
            },
          },
        ),
      ),
    ).toThrow(ValidationError);
  });

  it('attack: a hostile key is cut short in the issue path', () => {
    const key = 'x'.repeat(100_000);
    const [path] = pathsOf(() => createGrant({ roles: { orgs: { [key]: 'owner' } } }));
    expect((path as string).length).toBeLessThan(80);
  });

  it('accepts "constructor" and other prototype names as ordinary org names', () => {
    const g = createGrant({ roles: { orgs: JSON.parse('{"constructor": "viewer"}') as Record<string, 'viewer'> } });
    expect(authorize(g, 'constructor/web', 'repo:read')).toBe(ALLOW);
    expect(authorize(g, 'toString/web', 'repo:read')).toBe(DENY_ROLE);
  });
});

describe('compileLayer and createGrant: layers', () => {
  it('refuses layers that are not an array', () => {
    expect(pathsOf(() => createGrant({ roles: {}, layers: {} as never }))).toEqual(['layers']);
  });

  it('reports each bad entry with its layer and entry path', () => {
    const bad = [
      { resource: 'acme/web', permissions: ['role:owner'] },
      { resource: 'acme/web', permissions: ['org:read'] },
      { resource: 'acme', permissions: ['repo:read'], allowedMatches: ['Doc/*'] },
      { resource: 'acme//web', permissions: ['repo:read'] },
      { resource: 'acme/api', permissions: [] },
      { resource: 'acme/api', permissions: ['repo:read'], allowedMatches: ['Doc/{a,b}'] },
      { resource: 'acme/api', permissions: ['repo:read'], extra: true },
      null,
    ];
    const paths = pathsOf(() => createGrant({ roles: {}, layers: [[], bad as never] }));
    expect(paths).toEqual([
      'layers[1][0].permissions[0]',
      'layers[1][1].permissions[0]',
      'layers[1][2].allowedMatches',
      'layers[1][3].resource',
      'layers[1][4].permissions',
      'layers[1][5].allowedMatches[0]',
      'layers[1][6].extra',
      'layers[1][7]',
    ]);
  });

  it('S2: a repeated (resource, permission) pair is refused, also across entries and letter case', () => {
    const dup: Scope[] = [
      { resource: 'acme/web', permissions: ['repo:read'] },
      { resource: 'ACME/web', permissions: ['repo:write', 'repo:read'] },
    ];
    expect(pathsOf(() => compileLayer(dup))).toEqual(['[1].permissions']);
    expect(pathsOf(() => compileLayer([{ permissions: ['repo:read', 'repo:read'] }]))).toEqual(['[0].permissions[1]']);
  });

  it('S6/S8: more than 100 entries or 64 patterns is refused', () => {
    const many: Scope[] = Array.from({ length: 101 }, (_, i) => ({ resource: `acme/r${i}`, permissions: ['repo:read'] }));
    expect(pathsOf(() => compileLayer(many))).toEqual(['']);
    const patterns = Array.from({ length: 65 }, (_, i) => `Doc/p${i}`);
    expect(pathsOf(() => compileLayer([{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: patterns }]))).toEqual([
      '[0].allowedMatches',
    ]);
  });

  it('a look-alike object is not a compiled layer', () => {
    const fake = Object.create(CompiledLayer.prototype) as CompiledLayer;
    expect(pathsOf(() => createGrant({ roles: {}, layers: [fake] }))).toEqual(['layers[0]']);
  });

  it('attack: a Proxy scope list whose traps throw ends as ValidationError', () => {
    const boom = new Proxy([], {
      get() {
        throw new Error('boom');
      },
    });
    expect(() => compileLayer(boom)).toThrow(ValidationError);
    expect(() => createGrant({ roles: {}, layers: [boom] })).toThrow(ValidationError);
  });

  it('accepts frozen scopes as normalizeScopes returns them', () => {
    const s: Scope = Object.freeze({
      resource: 'acme/web',
      permissions: Object.freeze(['repo:read' as const]),
      allowedMatches: Object.freeze(['Doc/*']),
    });
    const g = createGrant({ roles: { orgs: { acme: 'viewer' } }, layers: [Object.freeze([s])] });
    expect(authorize(g, 'acme/web', 'repo:read', 'Doc/a')).toBe(ALLOW);
  });
});
