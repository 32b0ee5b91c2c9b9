import { describe, it, expect } from 'vitest';
import {
  authorize,
  createGrant,
  compileLayer,
  Grant,
  type Decision,
  GRANT_SLOT,
  type Principal,
  grantTable,
  type UserRoles,
} from '../../../src/core/policy';
import { ALLOW, DENY_INVALID, DENY_ROLE, DENY_SCOPE, DENY_THING } from '../../../src/core/policy/decision';
import { PERMISSIONS, ROLE_TABLE, type Permission } from '../../../src/core/vocabulary';
import type { Scope } from '../../../src/core/scopes';

// A principal carrying `grant` the way the service attaches one (a hidden, fixed slot).
function attachGrant<T extends object>(target: T, grant: unknown): T {
  return Object.defineProperty(target, GRANT_SLOT, { value: grant, enumerable: false, writable: false, configurable: false });
}

const OWNER_ALL: UserRoles = { orgs: { acme: 'owner' } };

function grant(roles: UserRoles, ...layers: Scope[][]): Grant {
  return createGrant({ roles, layers });
}

function principalOf(g: Grant): Principal {
  return attachGrant({ kind: 'pat', userId: 'u1', tokenId: 't1', expiresAt: new Date(0) } as Principal, g);
}

const REPO_PERMS: Permission[] = ['repo:read', 'repo:write', 'repo:configure', 'repo:admin'];

describe('A1: malformed input is invalid, never a throw', () => {
  const g = grant(OWNER_ALL);

  it('A1: non-string resource, permission or thing name', () => {
    for (const bad of [undefined, null, 1, {}, [], Symbol('x'), new String('acme/web'), { toString: () => 'acme/web' }]) {
      expect(authorize(g, bad as never, 'repo:read')).toBe(DENY_INVALID);
      expect(authorize(g, 'acme/web', bad as never)).toBe(DENY_INVALID);
      if (bad !== undefined) expect(authorize(g, 'acme/web', 'repo:read', bad as never)).toBe(DENY_INVALID);
    }
  });

  it('A1: resource syntax breaks S7', () => {
    const bad = [
      '',
      '/',
      'acme/',
      '/web',
      'acme//web',
      'acme/web/x',
      '-acme',
      'acme/.web',
      'ac me',
      'acme/w b',
      'acme\\web',
      'a'.repeat(101),
      `acme/${'w'.repeat(101)}`,
      'acme/web\n',
      'é',
      'ac\u212Ae',
    ];
    for (const r of bad) {
      expect(authorize(g, r, r.includes('/') ? 'repo:read' : 'org:read')).toBe(DENY_INVALID);
    }
  });

  it('A1: the Kelvin sign does not lowercase its way into a known org', () => {
    // "\u212A".toLowerCase() is "k": the scan must reject it before lowercasing.
    const kg = grant({ orgs: { kacme: 'owner' } });
    expect(authorize(kg, '\u212Aacme', 'org:read')).toBe(DENY_INVALID);
    expect(authorize(kg, '\u212Aacme/web', 'repo:read')).toBe(DENY_INVALID);
    expect(authorize(kg, 'KACME', 'org:read')).toBe(ALLOW);
  });

  it('A1: unknown permissions, including prototype names and role shorthands', () => {
    for (const p of ['repo:*', 'REPO:READ', 'repo:read ', 'role:owner', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '']) {
      expect(authorize(g, 'acme/web', p)).toBe(DENY_INVALID);
    }
  });

  it('A1: bad thing names per S7', () => {
    const bad = [
      '',
      'Doc',
      'Doc/',
      '/Doc',
      'Doc//a',
      'Doc/./a',
      'Doc/../etc',
      'Doc/a\\b',
      'Doc/a\u0000',
      'Doc/a\u0085',
      `Doc/${'a'.repeat(1021)}`,
    ];
    for (const t of bad) expect(authorize(g, 'acme/web', 'repo:read', t)).toBe(DENY_INVALID);
    expect(authorize(g, 'acme/web', 'repo:read', `Doc/${'a'.repeat(1020)}`)).toBe(ALLOW);
  });

  it('attack: path traversal under allowed patterns is invalid, also where one RegExp checks name and patterns', () => {
    // Two layers of single-RegExp shapes: authorize answers from one validating RegExp.
    const folded = grant(
      OWNER_ALL,
      [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/**', 'Img/*.png'] }],
      [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*', 'Img/**'] }],
    );
    for (const t of ['Doc/..', 'Doc/.', 'Doc/../etc', 'Doc//x', 'Doc/', 'Doc/a\\..', 'Doc/x\u2028', `Doc/${'a'.repeat(1021)}`]) {
      expect(authorize(folded, 'acme/web', 'repo:read', t)).toBe(DENY_INVALID);
    }
    expect(authorize(folded, 'acme/web', 'repo:read', 'Doc/readme')).toBe(ALLOW);
    expect(authorize(folded, 'acme/web', 'repo:read', 'Img/logo.png')).toBe(ALLOW);
    // Valid names outside the patterns (of one layer or both) are `thing`, not `invalid`.
    expect(authorize(folded, 'acme/web', 'repo:read', 'Doc/a/b')).toBe(DENY_THING);
    expect(authorize(folded, 'acme/web', 'repo:read', 'Src/main')).toBe(DENY_THING);
    expect(authorize(folded, 'acme/web', 'repo:read', 12 as never)).toBe(DENY_INVALID);
  });

  it('A1: a thing name with an org permission', () => {
    expect(authorize(g, 'acme', 'org:read')).toBe(ALLOW);
    expect(authorize(g, 'acme', 'org:read', 'Doc/readme')).toBe(DENY_INVALID);
  });

  it('A1: invalid comes before role, role before scope', () => {
    const none = grant({}, [{ resource: 'other', permissions: ['org:read'] }]);
    expect(authorize(none, 'acme/web', 'repo:read', 'Doc/../x')).toBe(DENY_INVALID);
    expect(authorize(none, 'acme/web', 'repo:read', 'Doc/x')).toBe(DENY_ROLE);
    const viewer = grant({ orgs: { acme: 'viewer' } }, [{ resource: 'other', permissions: ['org:read'] }]);
    expect(authorize(viewer, 'acme/web', 'repo:write')).toBe(DENY_ROLE);
    expect(authorize(viewer, 'acme/web', 'repo:read')).toBe(DENY_SCOPE);
  });

  it('A1: decisions are the frozen constants', () => {
    const d = authorize(g, 'acme/web', 'repo:read');
    expect(d).toBe(ALLOW);
    expect(Object.isFrozen(d)).toBe(true);
  });
});

describe('A1: the subject', () => {
  const g = grant(OWNER_ALL);

  it('A1: the principal that authenticate returned works like its grant', () => {
    const p = principalOf(g);
    expect(authorize(p, 'acme/web', 'repo:admin')).toBe(ALLOW);
    expect(authorize(p, 'beta/web', 'repo:read')).toBe(DENY_ROLE);
  });

  it('A1: a copy of a principal (spread, assign, JSON, structuredClone) is invalid', () => {
    const p = principalOf(g);
    const copies = [{ ...p }, Object.assign({}, p), JSON.parse(JSON.stringify(p)), structuredClone(p)];
    for (const c of copies) expect(authorize(c as Principal, 'acme/web', 'repo:read')).toBe(DENY_INVALID);
  });

  it('A1: a principal whose slot holds something other than a real Grant is invalid', () => {
    const fake = attachGrant({ kind: 'pat', userId: 'u', expiresAt: new Date(0) } as Principal, {
      exact: new Map(),
      repoDefault: new Map(),
    });
    expect(authorize(fake, 'acme/web', 'repo:read')).toBe(DENY_INVALID);
    const lookalike = Object.create(Grant.prototype) as Grant;
    expect(authorize(lookalike, 'acme/web', 'repo:read')).toBe(DENY_INVALID);
  });

  it('A1: non-object subjects are invalid', () => {
    for (const s of [undefined, null, 0, 'grant', true, Symbol('g'), () => ALLOW]) {
      expect(authorize(s as never, 'acme/web', 'repo:read')).toBe(DENY_INVALID);
    }
  });

  it('attack: a Proxy subject whose every trap throws is invalid, not a throw', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        has() {
          throw new Error('boom');
        },
        getPrototypeOf() {
          throw new Error('boom');
        },
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
      },
    );
    expect(authorize(hostile as never, 'acme/web', 'repo:read')).toBe(DENY_INVALID);
  });

  it('attack: a Proxy around a real Grant or claiming its prototype is invalid', () => {
    expect(authorize(new Proxy(g, {}), 'acme/web', 'repo:read')).toBe(DENY_INVALID);
    const liar = new Proxy({}, { getPrototypeOf: () => Grant.prototype });
    expect(liar instanceof Grant).toBe(true);
    expect(authorize(liar as Grant, 'acme/web', 'repo:read')).toBe(DENY_INVALID);
  });

  it('attack: a 10 MB resource or thing name is invalid', () => {
    const big = 'a'.repeat(10 * 1024 * 1024);
    expect(authorize(g, big, 'org:read')).toBe(DENY_INVALID);
    expect(authorize(g, `acme/${big}`, 'repo:read')).toBe(DENY_INVALID);
    expect(authorize(g, 'acme/web', 'repo:read', `Doc/${big}`)).toBe(DENY_INVALID);
  });

  it('attack: a flood of distinct resources keeps the per-grant memo of rows at 8, and the memo never changes an answer', () => {
    const fresh = (): Grant => grant({ orgs: { acme: 'editor' } }, [{ resource: 'acme', permissions: ['repo:read'] }]);
    const warm = fresh();
    const asked = ['Acme/Web', 'acme/api', 'ACME', 'zeta/x', 'acme/Web', 'acme/-bad', 'a'.repeat(70) + '/x'];
    for (let i = 0; i < 200; i++) asked.push(`acme/r${i}`, `Acme/R${i}`);
    for (const round of [1, 2]) {
      for (const r of asked) {
        for (const p of ['repo:read', 'repo:write', 'org:read'] as const) {
          expect(authorize(warm, r, p), `${r} ${p} round ${round}`).toBe(authorize(fresh(), r, p));
        }
        expect(grantTable(warm)?.seen.size).toBeLessThanOrEqual(8);
      }
    }
  });

  it('attack: prototype-named resources find nothing', () => {
    for (const r of ['constructor', 'hasOwnProperty', 'prototype', 'toString/valueOf']) {
      expect(authorize(g, r, r.includes('/') ? 'repo:read' : 'org:read')).toBe(DENY_ROLE);
    }
    expect(authorize(g, '__proto__', 'org:read')).toBe(DENY_INVALID);
  });
});

describe('A2: permission and resource tier must pair', () => {
  const g = grant(OWNER_ALL);
  it('A2: a repo permission on an org is invalid', () => {
    for (const p of REPO_PERMS) expect(authorize(g, 'acme', p)).toBe(DENY_INVALID);
  });
  it('A2: an org permission on a repo is invalid', () => {
    for (const p of ['org:read', 'org:configure', 'org:admin']) expect(authorize(g, 'acme/web', p)).toBe(DENY_INVALID);
  });
});

describe('A3: the role cap', () => {
  it('A3: on a repo: the repo part of the org role plus the repo role', () => {
    const g = grant({ orgs: { acme: 'viewer' }, repos: { 'acme/web': 'editor', 'beta/api': 'admin' } });
    expect(authorize(g, 'acme/web', 'repo:write')).toBe(ALLOW);
    expect(authorize(g, 'acme/web', 'repo:configure')).toBe(DENY_ROLE);
    expect(authorize(g, 'acme/other', 'repo:read')).toBe(ALLOW);
    expect(authorize(g, 'acme/other', 'repo:write')).toBe(DENY_ROLE);
    expect(authorize(g, 'beta/api', 'repo:admin')).toBe(ALLOW);
    expect(authorize(g, 'beta/web', 'repo:read')).toBe(DENY_ROLE);
  });

  it('A3: on an org: the org part of the org role; a repo role gives no org permission', () => {
    const g = grant({ orgs: { acme: 'admin' }, repos: { 'beta/api': 'owner' } });
    expect(authorize(g, 'acme', 'org:configure')).toBe(ALLOW);
    expect(authorize(g, 'acme', 'org:admin')).toBe(DENY_ROLE);
    expect(authorize(g, 'beta', 'org:read')).toBe(DENY_ROLE);
  });

  it('A3: every role holds exactly its row of the role table', () => {
    for (const role of ['owner', 'admin', 'editor', 'viewer'] as const) {
      const g = grant({ orgs: { acme: role } });
      for (const p of PERMISSIONS) {
        const onRepo = p.startsWith('repo:');
        const held = onRepo ? ROLE_TABLE[role].repo.includes(p) : ROLE_TABLE[role].org.includes(p);
        expect(authorize(g, onRepo ? 'acme/web' : 'acme', p)).toBe(held ? ALLOW : DENY_ROLE);
      }
    }
  });

  it('A3: scopes never add to the role cap', () => {
    const everything: Scope[] = [
      { resource: 'acme/web', permissions: REPO_PERMS },
      { resource: 'acme', permissions: [...PERMISSIONS] },
      { permissions: [...PERMISSIONS] },
    ];
    const g = grant({ orgs: { acme: 'viewer' } }, everything);
    expect(authorize(g, 'acme/web', 'repo:write')).toBe(DENY_ROLE);
    expect(authorize(g, 'acme', 'org:admin')).toBe(DENY_ROLE);
    expect(authorize(g, 'zeta/web', 'repo:read')).toBe(DENY_ROLE);
  });

  it('A3: role map keys and resources compare case-insensitively', () => {
    const g = grant({ orgs: { AcMe: 'editor' }, repos: { 'Beta/API': 'viewer' } });
    expect(authorize(g, 'acme/web', 'repo:write')).toBe(ALLOW);
    expect(authorize(g, 'ACME/WEB', 'repo:write')).toBe(ALLOW);
    expect(authorize(g, 'ACME', 'org:read')).toBe(ALLOW);
    expect(authorize(g, 'beta/api', 'repo:read')).toBe(ALLOW);
    expect(authorize(g, 'BETA/Api', 'repo:read')).toBe(ALLOW);
  });
});

describe('A4: one layer, the most specific tier decides', () => {
  const roles = OWNER_ALL;

  it('A4: the repo tier wins over the org tier', () => {
    const g = grant(roles, [
      { resource: 'acme', permissions: ['repo:read', 'repo:write'] },
      { resource: 'acme/web', permissions: ['repo:read'] },
    ]);
    expect(authorize(g, 'acme/web', 'repo:read')).toBe(ALLOW);
    expect(authorize(g, 'acme/web', 'repo:write')).toBe(DENY_SCOPE);
    expect(authorize(g, 'acme/api', 'repo:write')).toBe(ALLOW);
  });

  it('A4: the org tier wins over the global tier, even when it lacks the permission', () => {
    const g = grant(roles, [{ permissions: ['repo:read', 'org:read'] }, { resource: 'acme', permissions: ['org:read'] }]);
    expect(authorize(g, 'acme/web', 'repo:read')).toBe(DENY_SCOPE);
    expect(authorize(g, 'acme', 'org:read')).toBe(ALLOW);
    const g2 = grant({ orgs: { acme: 'owner', beta: 'owner' } }, [
      { permissions: ['repo:read'] },
      { resource: 'acme', permissions: ['org:read'] },
    ]);
    expect(authorize(g2, 'beta/web', 'repo:read')).toBe(ALLOW);
  });

  it('A4: no tier for the resource is scope', () => {
    const g = grant({ orgs: { acme: 'owner', beta: 'owner' } }, [{ resource: 'acme/web', permissions: ['repo:read'] }]);
    expect(authorize(g, 'beta/web', 'repo:read')).toBe(DENY_SCOPE);
    expect(authorize(g, 'acme', 'org:read')).toBe(DENY_SCOPE);
    expect(authorize(g, 'acme/api', 'repo:read')).toBe(DENY_SCOPE);
  });

  it('A4: spec 2.2 rule 4, repo:write does not include repo:read', () => {
    const g = grant(roles, [{ resource: 'acme/web', permissions: ['repo:write'] }]);
    expect(authorize(g, 'acme/web', 'repo:write')).toBe(ALLOW);
    expect(authorize(g, 'acme/web', 'repo:read')).toBe(DENY_SCOPE);
  });

  it('A4: a thing name matching one pattern is allowed; no match is thing', () => {
    const g = grant(roles, [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*', 'Img/**'] }]);
    expect(authorize(g, 'acme/web', 'repo:read', 'Doc/readme')).toBe(ALLOW);
    expect(authorize(g, 'acme/web', 'repo:read', 'Img/a/b/c.png')).toBe(ALLOW);
    expect(authorize(g, 'acme/web', 'repo:read', 'Doc/a/b')).toBe(DENY_THING);
    expect(authorize(g, 'acme/web', 'repo:read', 'doc/readme')).toBe(DENY_THING);
  });

  it('A4: without a thing name a non-empty allowedMatches allows (a repository-level operation)', () => {
    const g = grant(roles, [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }]);
    expect(authorize(g, 'acme/web', 'repo:read')).toBe(ALLOW);
  });

  it('A4: allowedMatches [] denies every thing, and the no-thing case as thing', () => {
    const g = grant(roles, [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: [] }]);
    expect(authorize(g, 'acme/web', 'repo:read', 'Doc/readme')).toBe(DENY_THING);
    expect(authorize(g, 'acme/web', 'repo:read')).toBe(DENY_THING);
  });

  it('A4: a thing name given to an entry without allowedMatches is fine', () => {
    const g = grant(roles, [
      { resource: 'acme/web', permissions: ['repo:read'] },
      { resource: 'acme', permissions: ['repo:write'] },
    ]);
    expect(authorize(g, 'acme/web', 'repo:read', 'Any/thing/at/all')).toBe(ALLOW);
    expect(authorize(g, 'acme/api', 'repo:write', 'Doc/x')).toBe(ALLOW);
  });

  it('A4: several entries on one resource give each permission its own allowedMatches', () => {
    const g = grant(roles, [
      { resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['**'] },
      { resource: 'acme/web', permissions: ['repo:write'], allowedMatches: ['Doc/*'] },
    ]);
    expect(authorize(g, 'acme/web', 'repo:read', 'Img/x')).toBe(ALLOW);
    expect(authorize(g, 'acme/web', 'repo:write', 'Img/x')).toBe(DENY_THING);
    expect(authorize(g, 'acme/web', 'repo:write', 'Doc/x')).toBe(ALLOW);
    expect(authorize(g, 'acme/web', 'repo:admin', 'Doc/x')).toBe(DENY_SCOPE);
  });

  it('A4: thing names are case-sensitive, a leading dot matches like any character', () => {
    const g = grant(roles, [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }]);
    expect(authorize(g, 'acme/web', 'repo:read', 'Doc/.hidden')).toBe(ALLOW);
    expect(authorize(g, 'acme/web', 'repo:read', 'DOC/x')).toBe(DENY_THING);
  });

  it('spec 2.4 rule 3: role:owner and role:admin differ only on org entries', () => {
    const expand = (role: 'owner' | 'admin', resource: string): Scope => ({
      resource,
      permissions: resource.includes('/') ? [...ROLE_TABLE[role].repo] : [...ROLE_TABLE[role].repo, ...ROLE_TABLE[role].org],
    });
    const onRepo = (role: 'owner' | 'admin') => grant(roles, [expand(role, 'acme/web')]);
    for (const p of REPO_PERMS) expect(authorize(onRepo('owner'), 'acme/web', p)).toBe(authorize(onRepo('admin'), 'acme/web', p));
    const onOrg = (role: 'owner' | 'admin') => grant(roles, [expand(role, 'acme')]);
    expect(authorize(onOrg('owner'), 'acme', 'org:admin')).toBe(ALLOW);
    expect(authorize(onOrg('admin'), 'acme', 'org:admin')).toBe(DENY_SCOPE);
    expect(authorize(onOrg('admin'), 'acme', 'org:configure')).toBe(ALLOW);
  });
});

describe('A5: every layer and the role cap must allow', () => {
  it('A5: a token without scopes has the full permissions of its owner (no layers = role cap alone)', () => {
    const roles: UserRoles = { orgs: { acme: 'editor' }, repos: { 'beta/api': 'admin' } };
    const session = createGrant({ roles });
    const unscoped = createGrant({ roles, layers: [] });
    for (const [r, p] of [
      ['acme/web', 'repo:write'],
      ['acme', 'org:read'],
      ['beta/api', 'repo:admin'],
    ] as const) {
      expect(authorize(session, r, p)).toBe(ALLOW);
      expect(authorize(unscoped, r, p)).toBe(ALLOW);
    }
    expect(authorize(session, 'acme', 'org:configure')).toBe(DENY_ROLE);
  });

  it('A5: child acme/w=repo:read under parent acme=repo:read', () => {
    const g = grant(OWNER_ALL, [{ resource: 'acme/w', permissions: ['repo:read'] }], [{ resource: 'acme', permissions: ['repo:read'] }]);
    expect(authorize(g, 'acme/w', 'repo:read')).toBe(ALLOW);
    expect(authorize(g, 'acme/x', 'repo:read')).toBe(DENY_SCOPE);
    expect(authorize(g, 'acme/w', 'repo:write')).toBe(DENY_SCOPE);
  });

  it('A5: a parent layer narrows a wider child', () => {
    const g = grant(
      OWNER_ALL,
      [{ resource: 'acme', permissions: ['repo:read', 'repo:write'] }],
      [{ resource: 'acme/w', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }],
    );
    expect(authorize(g, 'acme/w', 'repo:read', 'Doc/a')).toBe(ALLOW);
    expect(authorize(g, 'acme/w', 'repo:read', 'Img/a')).toBe(DENY_THING);
    expect(authorize(g, 'acme/w', 'repo:write')).toBe(DENY_SCOPE);
    expect(authorize(g, 'acme/v', 'repo:read')).toBe(DENY_SCOPE);
  });

  it('A5: a thing must match a pattern of every restricting layer', () => {
    const g = grant(
      OWNER_ALL,
      [{ resource: 'acme/w', permissions: ['repo:read'], allowedMatches: ['Doc/**'] }],
      [{ resource: 'acme/w', permissions: ['repo:read'], allowedMatches: ['*/a'] }],
    );
    expect(authorize(g, 'acme/w', 'repo:read', 'Doc/a')).toBe(ALLOW);
    expect(authorize(g, 'acme/w', 'repo:read', 'Doc/b')).toBe(DENY_THING);
    expect(authorize(g, 'acme/w', 'repo:read', 'Img/a')).toBe(DENY_THING);
  });

  it('A5: an empty layer denies everything as scope', () => {
    const g = grant(OWNER_ALL, []);
    expect(authorize(g, 'acme/web', 'repo:read')).toBe(DENY_SCOPE);
    expect(authorize(g, 'acme', 'org:read')).toBe(DENY_SCOPE);
    expect(authorize(g, 'beta', 'org:read')).toBe(DENY_ROLE);
  });

  it('A5: across layers a missing permission (scope) is reported before a thing restriction, in any layer order', () => {
    const own: Scope[] = [{ resource: 'acme/w', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }];
    const parent: Scope[] = [{ resource: 'acme/w', permissions: ['repo:write'] }];
    const results: Decision[] = [grant(OWNER_ALL, own, parent), grant(OWNER_ALL, parent, own)].map((g) =>
      authorize(g, 'acme/w', 'repo:read', 'Img/x'),
    );
    expect(results).toEqual([DENY_SCOPE, DENY_SCOPE]);
    const closed: Scope[] = [{ resource: 'acme/w', permissions: ['repo:read'], allowedMatches: [] }];
    for (const g of [grant(OWNER_ALL, closed, parent), grant(OWNER_ALL, parent, closed)]) {
      expect(authorize(g, 'acme/w', 'repo:read')).toBe(DENY_SCOPE);
      expect(authorize(g, 'acme/w', 'repo:read', 'Doc/a')).toBe(DENY_SCOPE);
    }
  });

  it('A5: compiled layers decide exactly like raw scopes and can be reused across grants', () => {
    const own: Scope[] = [
      { resource: 'acme/w', permissions: ['repo:read'], allowedMatches: ['Doc/*'] },
      { resource: 'acme', permissions: ['org:read'] },
    ];
    const layer = compileLayer(own);
    const a = createGrant({ roles: OWNER_ALL, layers: [layer] });
    const b = createGrant({ roles: { orgs: { acme: 'viewer' } }, layers: [layer, layer] });
    const raw = createGrant({ roles: OWNER_ALL, layers: [own] });
    for (const [r, p, t] of [
      ['acme/w', 'repo:read', 'Doc/x'],
      ['acme/w', 'repo:read', 'Img/x'],
      ['acme', 'org:read', undefined],
      ['acme/v', 'repo:read', undefined],
    ] as const) {
      expect(authorize(a, r, p, t)).toBe(authorize(raw, r, p, t));
    }
    expect(authorize(b, 'acme/w', 'repo:read', 'Doc/x')).toBe(ALLOW);
    expect(authorize(b, 'acme/w', 'repo:write', 'Doc/x')).toBe(DENY_ROLE);
  });
});
