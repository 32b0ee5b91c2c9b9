import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ValidationError } from '../../../src/errors';
import { normalizeScopes, LIMITS, type Scope, type ScopeEntry } from '../../../src/core/scopes';
import { PERMISSIONS, ROLES, ROLE_TABLE } from '../../../src/core/vocabulary';
import { validScopeEntries } from './arbitraries';
import { issuesOf, pathsOf } from '../../support/errors';

/** The permissions taken on an `org/repo` resource. */
const REPO_PERMISSIONS = PERMISSIONS.filter((p) => p.startsWith('repo:'));
/** The permissions taken on an `org` resource. */
const ORG_PERMISSIONS = PERMISSIONS.filter((p) => p.startsWith('org:'));

const norm = (entries: unknown) => normalizeScopes(entries as ScopeEntry[]);

function expectInvariants(scopes: readonly Scope[]): void {
  const pairs = new Set<string>();
  for (const s of scopes) {
    expect(Object.isFrozen(s)).toBe(true);
    expect(Object.isFrozen(s.permissions)).toBe(true);
    if (s.allowedMatches) expect(Object.isFrozen(s.allowedMatches)).toBe(true);
    expect(Object.keys(s).every((k) => ['resource', 'permissions', 'allowedMatches'].includes(k))).toBe(true);
    if ('resource' in s) expect(s.resource).toBe(s.resource?.toLowerCase());
    const isRepo = s.resource?.includes('/') ?? false;
    if (!isRepo) expect(s.allowedMatches).toBeUndefined();
    if (isRepo) for (const p of s.permissions) expect(REPO_PERMISSIONS).toContain(p);
    expect(s.permissions.length).toBeGreaterThan(0);
    expect([...s.permissions]).toEqual(PERMISSIONS.filter((p) => s.permissions.includes(p)));
    for (const p of s.permissions) {
      const key = `${s.resource ?? ''}|${p}`;
      expect(pairs.has(key)).toBe(false);
      pairs.add(key);
    }
  }
}

describe('normalizeScopes', () => {
  it('S7: lowercases resources and keeps global entries without a resource key', () => {
    const { scopes, warnings } = normalizeScopes([
      { resource: 'Acme/Web', permissions: ['repo:write', 'repo:read'] },
      { resource: 'ACME', permissions: ['org:read'] },
      { permissions: ['repo:read'] },
    ]);
    expect(scopes).toEqual([
      { resource: 'acme/web', permissions: ['repo:read', 'repo:write'] },
      { resource: 'acme', permissions: ['org:read'] },
      { permissions: ['repo:read'] },
    ]);
    expect(Object.prototype.hasOwnProperty.call(scopes[2], 'resource')).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('output scopes are deeply frozen and share nothing with the input', () => {
    const input: ScopeEntry[] = [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }];
    const { scopes } = normalizeScopes(input);
    expectInvariants(scopes);
    expect(scopes[0]).not.toBe(input[0]);
    expect(scopes[0]?.allowedMatches).not.toBe(input[0]?.allowedMatches);
    input[0]?.allowedMatches?.push('Img/**');
    expect(scopes[0]?.allowedMatches).toEqual(['Doc/*']);
  });

  it('S2: role:<name> on the global wildcard is refused', () => {
    expect(pathsOf(() => normalizeScopes([{ permissions: ['role:viewer'] }]))).toEqual(['[0].permissions[0]']);
  });

  it('S3: a role on a repo entry expands to its repo permissions only', () => {
    for (const role of ROLES) {
      const { scopes } = normalizeScopes([{ resource: 'acme/web', permissions: [`role:${role}`] }]);
      expect(scopes[0]?.permissions).toEqual(ROLE_TABLE[role].repo);
    }
  });

  it('2.4: a role on an org entry expands to its repo permissions plus its org extras', () => {
    for (const role of ROLES) {
      const { scopes } = normalizeScopes([{ resource: 'acme', permissions: [`role:${role}`] }]);
      expect(scopes[0]?.permissions).toEqual([...ROLE_TABLE[role].repo, ...ROLE_TABLE[role].org]);
    }
  });

  it('2.4 rule 3: role:owner and role:admin are identical on a repo entry and differ on an org entry', () => {
    const repo = (r: string) => normalizeScopes([{ resource: 'a/b', permissions: [r] }]).scopes;
    const org = (r: string) => normalizeScopes([{ resource: 'a', permissions: [r] }]).scopes;
    expect(repo('role:owner')).toEqual(repo('role:admin'));
    expect(org('role:owner')).not.toEqual(org('role:admin'));
  });

  it('S2: a role may stand beside plain permissions it does not repeat', () => {
    const { scopes } = normalizeScopes([{ resource: 'acme', permissions: ['org:admin', 'role:viewer'] }]);
    expect(scopes[0]?.permissions).toEqual(['repo:read', 'org:read', 'org:admin']);
  });

  it('S2: a pair repeated within one entry after role expansion is refused', () => {
    expect(pathsOf(() => normalizeScopes([{ resource: 'acme/web', permissions: ['role:editor', 'repo:read'] }]))).toEqual([
      '[0].permissions[1]',
    ]);
    expect(pathsOf(() => normalizeScopes([{ resource: 'acme', permissions: ['role:viewer', 'role:editor'] }])).length).toBeGreaterThan(0);
    expect(pathsOf(() => normalizeScopes([{ permissions: ['repo:read', 'repo:read'] }]))).toEqual(['[0].permissions[1]']);
  });

  it('S2: a pair repeated across entries is refused, comparing resources case-insensitively', () => {
    const entries: ScopeEntry[] = [
      { resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*'] },
      { resource: 'ACME/Web', permissions: ['repo:read'], allowedMatches: ['Img/*'] },
    ];
    expect(pathsOf(() => normalizeScopes(entries))).toEqual(['[1].permissions']);
  });

  it('2.2: the same permission on different tiers is not a repeat; the global wildcard is its own resource', () => {
    const { scopes } = normalizeScopes([
      { permissions: ['repo:read'] },
      { resource: 'acme', permissions: ['repo:read'] },
      { resource: 'acme/web', permissions: ['repo:read'] },
    ]);
    expect(scopes).toHaveLength(3);
  });

  it('4.2: different allowedMatches per permission on one resource via several entries', () => {
    const { scopes } = normalizeScopes([
      { resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/**'] },
      { resource: 'acme/web', permissions: ['repo:write'], allowedMatches: ['Doc/drafts/*'] },
    ]);
    expect(scopes.map((s) => s.allowedMatches)).toEqual([['Doc/**'], ['Doc/drafts/*']]);
  });

  it('S3: org:* permissions on a repo entry are refused', () => {
    expect(pathsOf(() => normalizeScopes([{ resource: 'acme/web', permissions: ['repo:read', ...ORG_PERMISSIONS] }]))).toEqual([
      '[0].permissions[1]',
      '[0].permissions[2]',
      '[0].permissions[3]',
    ]);
  });

  it('2.3: repo and org permissions are both accepted on org and global entries', () => {
    const { scopes } = normalizeScopes([{ resource: 'acme', permissions: [...PERMISSIONS] }, { permissions: [...PERMISSIONS] }]);
    expect(scopes.map((s) => s.permissions)).toEqual([PERMISSIONS, PERMISSIONS]);
  });

  it('2.3: unknown permissions and roles are refused, case-sensitively', () => {
    const p = pathsOf(() =>
      normalizeScopes([
        { resource: 'acme', permissions: ['repo:reed', 'Repo:Read', 'role:Editor', 'role:superuser', 'repo:*', ' repo:read'] },
      ]),
    );
    expect(p).toEqual([0, 1, 2, 3, 4, 5].map((j) => `[0].permissions[${j}]`));
  });

  it('S4: an empty scope list is refused ("omit scopes for full access")', () => {
    expect(pathsOf(() => normalizeScopes([]))).toEqual(['']);
  });

  it('S4: an empty permission list is refused', () => {
    expect(pathsOf(() => normalizeScopes([{ resource: 'acme', permissions: [] }]))).toEqual(['[0].permissions']);
  });

  it('S5: allowedMatches on org and global entries is stripped with a warning', () => {
    const { scopes, warnings } = normalizeScopes([
      { resource: 'acme', permissions: ['org:read'], allowedMatches: ['Doc/*'] },
      { permissions: ['repo:read'], allowedMatches: [] },
    ]);
    expect(scopes).toEqual([{ resource: 'acme', permissions: ['org:read'] }, { permissions: ['repo:read'] }]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]?.startsWith('[0].allowedMatches')).toBe(true);
    expect(warnings[1]?.startsWith('[1].allowedMatches')).toBe(true);
  });

  it('S5: allowedMatches [] on a repo entry is kept (it denies every thing)', () => {
    const { scopes, warnings } = normalizeScopes([{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: [] }]);
    expect(scopes[0]?.allowedMatches).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('S5: allowedMatches keeps the given order; a repeated pattern is refused', () => {
    const { scopes } = normalizeScopes([{ resource: 'a/b', permissions: ['repo:read'], allowedMatches: ['Z/*', 'A/**'] }]);
    expect(scopes[0]?.allowedMatches).toEqual(['Z/*', 'A/**']);
    expect(pathsOf(() => normalizeScopes([{ resource: 'a/b', permissions: ['repo:read'], allowedMatches: ['A/*', 'A/*'] }]))).toEqual([
      '[0].allowedMatches[1]',
    ]);
  });

  it('S6: every pattern is checked and each bad one reported', () => {
    const bad = ['Doc/{a,b}', '!Doc/*', 'Doc/', '', 'Doc/[ab]', 'a**/b'];
    const p = pathsOf(() =>
      normalizeScopes([{ resource: 'a/b', permissions: ['repo:read'], allowedMatches: ['Doc/*', ...bad, 7] as string[] }]),
    );
    expect(p).toEqual([...bad, 7].map((_, k) => `[0].allowedMatches[${k + 1}]`));
  });

  it('S6: more than LIMITS.maxPatterns patterns are refused', () => {
    const many = Array.from({ length: LIMITS.maxPatterns + 1 }, (_, k) => `Doc/p${k}`);
    expect(pathsOf(() => normalizeScopes([{ resource: 'a/b', permissions: ['repo:read'], allowedMatches: many }]))).toEqual([
      '[0].allowedMatches',
    ]);
    expect(normalizeScopes([{ resource: 'a/b', permissions: ['repo:read'], allowedMatches: many.slice(1) }]).scopes).toHaveLength(1);
  });

  it('S7: bad org and repo names are refused', () => {
    const names = ['', '.acme', 'acme/', '/web', 'a/b/c', 'ac me', 'a'.repeat(101), `acme/${'r'.repeat(101)}`, 'acme\n', 'ac\u0000me'];
    const p = pathsOf(() => normalizeScopes(names.map((resource) => ({ resource, permissions: ['repo:read'] }))));
    expect(p).toEqual(names.map((_, i) => `[${i}].resource`));
    expect(normalizeScopes([{ resource: `${'a'.repeat(100)}/${'B'.repeat(100)}`, permissions: ['repo:read'] }]).scopes).toHaveLength(1);
  });

  it('S7 attack: zero-width and control characters in names and permissions are refused', () => {
    const p = pathsOf(() =>
      normalizeScopes([
        { resource: 'ac\u200bme', permissions: ['repo:read'] },
        { resource: 'acme', permissions: ['repo:read\u200b', 'org:\u0007read'] },
      ]),
    );
    expect(p).toEqual(['[0].resource', '[1].permissions[0]', '[1].permissions[1]']);
  });

  it('S8: more than LIMITS.maxEntries entries are refused', () => {
    const entries = Array.from({ length: LIMITS.maxEntries + 1 }, (_, i) => ({ resource: `acme/r${i}`, permissions: ['repo:read'] }));
    expect(pathsOf(() => normalizeScopes(entries))).toEqual(['']);
    expect(normalizeScopes(entries.slice(1)).scopes).toHaveLength(LIMITS.maxEntries);
  });

  it('S8: more than LIMITS.maxPermissionsPerEntry permissions in one entry are refused', () => {
    const perms = Array.from({ length: LIMITS.maxPermissionsPerEntry + 1 }, () => 'repo:read');
    expect(pathsOf(() => normalizeScopes([{ permissions: perms }]))).toEqual(['[0].permissions']);
  });

  it('every problem is collected into one ValidationError', () => {
    const p = pathsOf(() =>
      norm([
        { permissions: ['role:owner'] },
        { resource: 'bad name', permissions: ['repo:read'] },
        { resource: 'a/b', permissions: ['org:read'] },
        { resource: 'a', permissions: [] },
        'nonsense',
      ]),
    );
    expect(p).toEqual(['[0].permissions[0]', '[1].resource', '[2].permissions[0]', '[3].permissions', '[4]']);
  });

  it('S4: unknown keys on an in-process entry are refused (a misspelled restriction must not vanish)', () => {
    expect(pathsOf(() => norm([{ resource: 'a/b', permissions: ['repo:read'], allowed_matches: ['Doc/*'] }]))).toEqual([
      '[0].allowed_matches',
    ]);
  });

  it('a key present with the value undefined is refused, never read as omitted', () => {
    expect(pathsOf(() => norm([{ resource: undefined, permissions: ['repo:read'] }]))).toEqual(['[0].resource']);
    expect(pathsOf(() => norm([{ resource: 'a/b', permissions: ['repo:read'], allowedMatches: undefined }]))).toEqual([
      '[0].allowedMatches',
    ]);
  });

  it('S4 attack: an own __proto__ key (as JSON.parse makes it) is refused', () => {
    const entry = JSON.parse('{"permissions":["repo:read"],"__proto__":{"resource":"evil"}}') as ScopeEntry;
    expect(pathsOf(() => normalizeScopes([entry]))).toEqual(['[0].__proto__']);
  });

  it('S4 attack: inherited properties are ignored, a polluted Object.prototype included', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.allowedMatches = ['Secret/**'];
    proto.resource = 'evil';
    try {
      const { scopes } = normalizeScopes([{ permissions: ['repo:read'] }]);
      expect(scopes).toEqual([{ permissions: ['repo:read'] }]);
      expect(Object.prototype.hasOwnProperty.call(scopes[0], 'resource')).toBe(false);
    } finally {
      delete proto.allowedMatches;
      delete proto.resource;
    }
    const inherited = Object.create({ permissions: ['repo:admin'] }) as ScopeEntry;
    expect(pathsOf(() => normalizeScopes([inherited]))).toEqual(['[0].permissions']);
  });

  it('attack: numbers, null, holes and non-arrays are ValidationErrors', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(pathsOf(() => norm([, { permissions: ['repo:read'] }]))).toEqual(['[0]']);
    // eslint-disable-next-line no-sparse-arrays
    expect(pathsOf(() => norm([{ permissions: ['repo:read', , 'repo:write'] }]))).toEqual(['[0].permissions[1]']);
    expect(pathsOf(() => norm([{ permissions: [null, 5] }]))).toEqual(['[0].permissions[0]', '[0].permissions[1]']);
    expect(pathsOf(() => norm([{ resource: 5, permissions: 'repo:read' }]))).toEqual(['[0].resource']);
    expect(pathsOf(() => norm([{ permissions: 'repo:read' }]))).toEqual(['[0].permissions']);
    expect(pathsOf(() => norm([{ resource: 'a/b', permissions: ['repo:read'], allowedMatches: 'Doc/*' }]))).toEqual(['[0].allowedMatches']);
    expect(pathsOf(() => norm([null, 1, [], 'x']))).toEqual(['[0]', '[1]', '[2]', '[3]']);
    expect(pathsOf(() => norm(null))).toEqual(['']);
    expect(pathsOf(() => norm({ length: 1, 0: { permissions: ['repo:read'] } }))).toEqual(['']);
  });

  it('attack: a 10 MB permission string is refused with a short message', () => {
    const issues = issuesOf(() => normalizeScopes([{ permissions: ['x'.repeat(10 * 1024 * 1024)] }]));
    expect(issues[0]?.pathText).toBe('[0].permissions[0]');
    expect(issues[0]?.message.length).toBeLessThan(300);
  });

  it('attack: a huge array of entries is refused without walking it', () => {
    const huge = new Array(10_000_000);
    expect(pathsOf(() => norm(huge))).toEqual(['']);
  });

  it('attack: Proxies whose getters or traps throw become a ValidationError', () => {
    const throwingGetter = {
      get permissions(): string[] {
        throw new Error('boom');
      },
    };
    expect(() => norm([throwingGetter])).toThrow(ValidationError);
    const trap = new Proxy(
      { permissions: ['repo:read'] },
      {
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    expect(() => norm([trap])).toThrow(ValidationError);
    const list = new Proxy([{ permissions: ['repo:read'] }], {
      get() {
        throw new RangeError('boom');
      },
    });
    expect(() => norm(list)).toThrow(ValidationError);
  });

  it('attack: a Proxy that answers differently on each read cannot slip past validation', () => {
    let reads = 0;
    const shifty = new Proxy(
      { resource: 'acme/web', permissions: ['repo:read'] },
      {
        get(target, key, receiver) {
          if (key === 'permissions') return reads++ === 0 ? ['repo:read'] : ['org:admin'];
          return Reflect.get(target, key, receiver);
        },
      },
    );
    const { scopes } = norm([shifty]);
    expect(scopes).toEqual([{ resource: 'acme/web', permissions: ['repo:read'] }]);
  });

  it('S9: scopes hold the expanded permissions, not the role name', () => {
    const { scopes } = normalizeScopes([{ resource: 'acme', permissions: ['role:editor'] }]);
    expect(scopes[0]?.permissions.some((p) => p.startsWith('role:'))).toBe(false);
  });

  it('property: normalizeScopes is idempotent and adds no warnings the second time', () => {
    fc.assert(
      fc.property(validScopeEntries(), (entries) => {
        const first = normalizeScopes(entries);
        const second = normalizeScopes(first.scopes);
        expect(second.scopes).toEqual(first.scopes);
        expect(second.warnings).toEqual([]);
      }),
    );
  });

  it('property: every accepted output satisfies the invariants', () => {
    fc.assert(
      fc.property(validScopeEntries(), (entries) => {
        expectInvariants(normalizeScopes(entries).scopes);
      }),
    );
  });

  it('property: any input is either accepted with the invariants or refused with a ValidationError', () => {
    const item = fc.oneof(
      fc.constantFrom(...PERMISSIONS, 'role:owner', 'role:viewer', 'role:nobody', 'repo:*', ''),
      fc.string(),
      fc.constant(null),
      fc.integer(),
    );
    const entry = fc.oneof(
      fc.record(
        {
          resource: fc.oneof(
            fc.constantFrom('acme', 'Acme', 'acme/web', 'ACME/web', 'a/b/c', '', '__proto__'),
            fc.string(),
            fc.constant(undefined),
          ),
          permissions: fc.oneof(fc.array(item, { maxLength: 6 }), item),
          allowedMatches: fc.oneof(
            fc.array(fc.oneof(fc.constantFrom('Doc/*', 'Img/**', 'a{b}'), fc.string()), { maxLength: 4 }),
            fc.constant(undefined),
          ),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), (entries) => {
        try {
          expectInvariants(norm(entries).scopes);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
