import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { authorize, canEverHold, createGrant, GRANT_SLOT, type Principal, type UserRoles } from '../../../src/core/policy';

// A principal carrying `grant` the way the service attaches one (a hidden, fixed slot).
function attachGrant<T extends object>(target: T, grant: unknown): T {
  return Object.defineProperty(target, GRANT_SLOT, { value: grant, enumerable: false, writable: false, configurable: false });
}
import { PERMISSIONS, ROLES, type Permission, type RoleName } from '../../../src/core/vocabulary';
import type { Scope } from '../../../src/core/scopes';

const ORGS = ['acme', 'beta'];
const REPO_KEYS = ORGS.flatMap((o) => ['web', 'api'].map((r) => `${o}/${r}`));
const PATTERNS = ['Doc/*', 'Doc/**', 'Img/*.png', '**', 'Other/z'];
// Every resource a grant can name, a repo of each org it names nowhere, and ones no grant names.
const RESOURCES = [...ORGS, ...REPO_KEYS, 'acme/other', 'beta/other', 'zeta', 'zeta/web'];
const THINGS = ['Doc/a', 'Doc/a/b', 'Img/x.png', 'Other/z'];

const roleArb = fc.constantFrom<RoleName>(...ROLES);
const roleMapArb = (keys: readonly string[]): fc.Arbitrary<Record<string, RoleName>> =>
  fc
    .uniqueArray(fc.tuple(fc.constantFrom(...keys), roleArb), { selector: (t) => t[0], maxLength: 3 })
    .map((rows) => Object.fromEntries(rows));
const rolesArb: fc.Arbitrary<UserRoles> = fc.record({ orgs: roleMapArb(ORGS), repos: roleMapArb(REPO_KEYS) }, { requiredKeys: [] });

const entryArb: fc.Arbitrary<Scope> = fc.option(fc.constantFrom(...ORGS, ...REPO_KEYS), { nil: undefined }).chain((resource) => {
  const isRepo = resource !== undefined && resource.includes('/');
  return fc
    .record({
      permissions: fc.subarray<Permission>(isRepo ? PERMISSIONS.slice(0, 4) : [...PERMISSIONS], { minLength: 1 }),
      allowedMatches: isRepo
        ? fc.option(fc.oneof(fc.constant([]), fc.subarray(PATTERNS, { minLength: 1, maxLength: 2 })), { nil: undefined })
        : fc.constant(undefined),
    })
    .map(({ permissions, allowedMatches }): Scope => ({
      ...(resource === undefined ? {} : { resource }),
      permissions,
      ...(allowedMatches === undefined ? {} : { allowedMatches }),
    }));
});

/** One entry per (resource, permission) pair, as normalizeScopes guarantees (S2). */
function dedupe(entries: readonly Scope[]): Scope[] {
  const seen = new Set<string>();
  const out: Scope[] = [];
  for (const e of entries) {
    const permissions = e.permissions.filter((p) => !seen.has(`${e.resource ?? ''} ${p}`));
    for (const p of permissions) seen.add(`${e.resource ?? ''} ${p}`);
    if (permissions.length > 0) out.push({ ...e, permissions });
  }
  return out;
}
const layersArb = fc.array(fc.array(entryArb, { maxLength: 4 }).map(dedupe), { maxLength: 3 });

/** Does authorize allow `p` anywhere we can think of asking? */
function allowedSomewhere(grant: Parameters<typeof authorize>[0], p: Permission): boolean {
  return RESOURCES.some((r) => authorize(grant, r, p).allowed || THINGS.some((t) => authorize(grant, r, p, t).allowed));
}

describe('canEverHold', () => {
  it('is true whenever authorize allows the permission on some resource or thing (soundness)', () => {
    fc.assert(
      fc.property(rolesArb, layersArb, (roles, layers) => {
        const grant = createGrant({ roles, layers });
        for (const p of PERMISSIONS) if (allowedSomewhere(grant, p)) expect(canEverHold(grant, p)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('is false when authorize allows it nowhere (exact: it hides only what can never be used)', () => {
    fc.assert(
      fc.property(rolesArb, layersArb, (roles, layers) => {
        const grant = createGrant({ roles, layers });
        for (const p of PERMISSIONS) expect(canEverHold(grant, p)).toBe(allowedSomewhere(grant, p));
      }),
      { numRuns: 400 },
    );
  });

  it('a read-only token never holds repo:write, even where its owner could write', () => {
    const grant = createGrant({ roles: { orgs: { acme: 'owner' } }, layers: [[{ resource: 'acme/web', permissions: ['repo:read'] }]] });
    expect(canEverHold(grant, 'repo:read')).toBe(true);
    expect(canEverHold(grant, 'repo:write')).toBe(false);
  });

  it('the role cap hides a permission every layer lists', () => {
    const grant = createGrant({ roles: { repos: { 'acme/web': 'viewer' } }, layers: [[{ permissions: ['repo:read', 'repo:write'] }]] });
    expect(canEverHold(grant, 'repo:read')).toBe(true);
    expect(canEverHold(grant, 'repo:write')).toBe(false);
  });

  it('every layer must list it: a parent layer without repo:write hides it from the child', () => {
    const own: Scope[] = [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }];
    const parent: Scope[] = [{ resource: 'acme', permissions: ['repo:read'] }];
    const grant = createGrant({ roles: { orgs: { acme: 'editor' } }, layers: [own, parent] });
    expect(canEverHold(grant, 'repo:write')).toBe(false);
    expect(canEverHold(grant, 'repo:read')).toBe(true);
  });

  it('a thing restriction does not hide the permission, an empty allowedMatches does', () => {
    const roles: UserRoles = { orgs: { acme: 'editor' } };
    expect(
      canEverHold(
        createGrant({ roles, layers: [[{ resource: 'acme/web', permissions: ['repo:write'], allowedMatches: ['Doc/**'] }]] }),
        'repo:write',
      ),
    ).toBe(true);
    expect(
      canEverHold(
        createGrant({ roles, layers: [[{ resource: 'acme/web', permissions: ['repo:write'], allowedMatches: [] }]] }),
        'repo:write',
      ),
    ).toBe(false);
  });

  it('an empty layer holds nothing; a session (no layers) holds what its role allows', () => {
    const roles: UserRoles = { orgs: { acme: 'admin' } };
    for (const p of PERMISSIONS) expect(canEverHold(createGrant({ roles, layers: [[]] }), p)).toBe(false);
    expect(canEverHold(createGrant({ roles }), 'org:configure')).toBe(true);
    expect(canEverHold(createGrant({ roles: {} }), 'repo:read')).toBe(false);
  });

  it('reads the grant of a real principal, and refuses a copy of it (forged principal)', () => {
    const grant = createGrant({ roles: { orgs: { acme: 'viewer' } } });
    const p = attachGrant({ kind: 'session', userId: 'alice', expiresAt: new Date(0) }, grant) as Principal;
    expect(canEverHold(p, 'repo:read')).toBe(true);
    expect(canEverHold({ ...p }, 'repo:read')).toBe(false);
  });

  it('hostile input is false, never a throw: unknown permissions, proxies, primitives', () => {
    const grant = createGrant({ roles: { orgs: { acme: 'owner' } } });
    for (const bad of ['repo:*', '__proto__', 'REPO:READ', '', undefined, 7]) expect(canEverHold(grant, bad as string)).toBe(false);
    const trap = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
        has: () => {
          throw new Error('trap');
        },
      },
    );
    for (const subject of [trap, null, undefined, 'grant', 1, {}]) expect(canEverHold(subject as never, 'repo:read')).toBe(false);
  });
});
