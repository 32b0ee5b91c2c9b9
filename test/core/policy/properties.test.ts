import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  authorize,
  createGrant,
  compileLayer,
  type Decision,
  GRANT_SLOT,
  type OrgGate,
  type Principal,
  type UserRoles,
} from '../../../src/core/policy';
import { ALLOW, DENY_INVALID, DENY_ROLE, DENY_SCOPE, DENY_THING } from '../../../src/core/policy/decision';
import { PERMISSIONS, ROLES, type Permission, type RoleName } from '../../../src/core/vocabulary';
import type { Scope } from '../../../src/core/scopes';
import { referenceAuthorize, type Outcome } from './reference';

// A principal carrying `grant` the way the service attaches one (a hidden, fixed slot).
function attachGrant<T extends object>(target: T, grant: unknown): T {
  return Object.defineProperty(target, GRANT_SLOT, { value: grant, enumerable: false, writable: false, configurable: false });
}

const ORGS = ['acme', 'beta', 'gamma'];
const REPO_KEYS = ORGS.flatMap((o) => ['web', 'api'].map((r) => `${o}/${r}`));
const REPO_PERMS = PERMISSIONS.slice(0, 4);
const PATTERNS = ['Doc/*', 'Doc/**', 'Img/*.png', '**', 'Doc/a?', 'Img/**/*.png', '*/a', 'Other/z'];
const RESOURCES = [
  ...ORGS,
  ...REPO_KEYS,
  'zeta',
  'zeta/web',
  'acme/other',
  'ACME/Web',
  'Beta',
  'gamma/API',
  '',
  'acme/',
  'a/b/c',
  '-x',
  'acme/we b',
];
const REQ_PERMS = [...PERMISSIONS, 'repo:*', '__proto__', 'REPO:READ'];
const THINGS = ['Doc/a', 'Doc/ab', 'Doc/a/b', 'Img/x.png', 'Img/y/x.png', 'Other/z', 'Doc/.x', 'bad', 'Doc//x', 'Doc/../x'];

const DECISIONS: readonly Decision[] = [ALLOW, DENY_INVALID, DENY_ROLE, DENY_SCOPE, DENY_THING];

function outcome(d: Decision): Outcome {
  if (d.allowed || d.reason !== 'policy') expect(DECISIONS).toContain(d);
  else {
    expect(Object.isFrozen(d)).toBe(true);
    expect(d.message).toMatch(/^gate of /);
  }
  return d.allowed ? 'allow' : d.reason;
}

const withCase = (s: string, c: number): string => (c === 0 ? s : c === 1 ? s.toUpperCase() : s.charAt(0).toUpperCase() + s.slice(1));

const roleArb = fc.constantFrom<RoleName>(...ROLES);

function roleMapArb(keys: readonly string[]): fc.Arbitrary<Record<string, RoleName>> {
  return fc
    .uniqueArray(fc.tuple(fc.constantFrom(...keys), roleArb, fc.nat(2)), { selector: (t) => t[0], maxLength: 4 })
    .map((rows) => Object.fromEntries(rows.map(([k, r, c]) => [withCase(k, c), r])));
}

const rolesArb: fc.Arbitrary<UserRoles> = fc.record({ orgs: roleMapArb(ORGS), repos: roleMapArb(REPO_KEYS) }, { requiredKeys: [] });

// Gates on known orgs and on one named nowhere else ('zeta'), keys in any case.
const gatesArb: fc.Arbitrary<Record<string, OrgGate>> = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...ORGS, 'zeta'), fc.boolean(), fc.nat(2)), { selector: (t) => t[0], maxLength: 3 })
  .map((rows) =>
    Object.fromEntries(
      rows.map(([o, blocked, c]): [string, OrgGate] => [
        withCase(o, c),
        blocked ? { blocked: `gate of ${o}: blocked` } : { scopedOnly: `gate of ${o}: scoped only` },
      ]),
    ),
  );

const entryArb: fc.Arbitrary<Scope> = fc
  .option(fc.tuple(fc.constantFrom(...ORGS, ...REPO_KEYS), fc.nat(4)), { nil: undefined })
  .chain((res) => {
    const resource = res === undefined ? undefined : withCase(res[0], res[1] > 2 ? 0 : res[1]);
    const isRepo = resource !== undefined && resource.includes('/');
    return fc
      .record({
        permissions: fc.subarray<Permission>(isRepo ? REPO_PERMS : [...PERMISSIONS], { minLength: 1 }),
        allowedMatches: isRepo
          ? fc.option(fc.oneof(fc.constant([]), fc.subarray(PATTERNS, { minLength: 1, maxLength: 3 })), { nil: undefined })
          : fc.constant(undefined),
      })
      .map(({ permissions, allowedMatches }): Scope => ({
        ...(resource === undefined ? {} : { resource }),
        permissions,
        ...(allowedMatches === undefined ? {} : { allowedMatches }),
      }));
  });

/** Drop repeated (resource, permission) pairs, as normalizeScopes guarantees (S2). */
function dedupe(entries: readonly Scope[], seen = new Set<string>()): Scope[] {
  const out: Scope[] = [];
  for (const e of entries) {
    const key = (e.resource ?? '').toLowerCase();
    const permissions = e.permissions.filter((p) => !seen.has(`${key} ${p}`));
    for (const p of permissions) seen.add(`${key} ${p}`);
    if (permissions.length > 0) out.push({ ...e, permissions });
  }
  return out;
}

const layerArb: fc.Arbitrary<Scope[]> = fc.array(entryArb, { maxLength: 5 }).map((es) => dedupe(es));
const layersArb = fc.array(layerArb, { maxLength: 3 });

interface Req {
  resource: string;
  permission: string;
  thing: string | undefined;
}
const reqArb: fc.Arbitrary<Req> = fc.record({
  resource: fc.constantFrom(...RESOURCES),
  permission: fc.constantFrom(...REQ_PERMS),
  thing: fc.option(fc.constantFrom(...THINGS), { nil: undefined }),
});
const reqsArb = fc.array(reqArb, { minLength: 1, maxLength: 25 });

const ask = (g: unknown, q: Req): Decision => authorize(g as never, q.resource, q.permission, q.thing);

describe('policy properties', () => {
  it('A1-A5: authorize equals the plain reference implementation', () => {
    fc.assert(
      fc.property(rolesArb, layersArb, reqsArb, (roles, layers, reqs) => {
        const g = createGrant({ roles, layers });
        const compiled = createGrant({ roles, layers: layers.map((l) => compileLayer(l)) });
        const p = attachGrant({ kind: 'pat', userId: 'u', expiresAt: new Date(0) } as Principal, g);
        for (const q of reqs) {
          const want = referenceAuthorize(roles, layers, q.resource, q.permission, q.thing);
          expect(outcome(ask(g, q))).toBe(want);
          expect(ask(compiled, q)).toBe(ask(g, q));
          expect(ask(p, q)).toBe(ask(g, q));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('A1/G2: with org gates, authorize equals the reference (policy after role, before scope and thing)', () => {
    fc.assert(
      fc.property(rolesArb, layersArb, gatesArb, reqsArb, (roles, layers, orgGates, reqs) => {
        const g = createGrant({ roles, layers, orgGates });
        const compiled = createGrant({ roles, layers: layers.map((l) => compileLayer(l)), orgGates });
        for (const q of reqs) {
          const want = referenceAuthorize(roles, layers, q.resource, q.permission, q.thing, orgGates);
          expect(outcome(ask(g, q))).toBe(want);
          // Each grant builds its own policy decisions: equal, and the same object on every call.
          expect(ask(compiled, q)).toStrictEqual(ask(g, q));
          expect(ask(g, q)).toBe(ask(g, q));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('G2: gates only narrow, and a blocked org is never allowed', () => {
    fc.assert(
      fc.property(rolesArb, layersArb, gatesArb, reqsArb, (roles, layers, orgGates, reqs) => {
        const gated = createGrant({ roles, layers, orgGates });
        const open = createGrant({ roles, layers });
        const blocked = new Set(Object.entries(orgGates).flatMap(([o, gate]) => ('blocked' in gate ? [o.toLowerCase()] : [])));
        for (const q of reqs) {
          const d = ask(gated, q);
          const without = ask(open, q);
          if (d.allowed) expect(without).toBe(ALLOW);
          if (blocked.has(q.resource.toLowerCase().split('/')[0] as string)) expect(d.allowed).toBe(false);
          // Order: invalid and role come first; a policy denial stands where the open grant said scope, thing or allow.
          if (without === DENY_INVALID || without === DENY_ROLE) expect(d).toBe(without);
          if (!d.allowed && d.reason === 'policy') expect([ALLOW, DENY_SCOPE, DENY_THING]).toContain(without);
          if (!d.allowed && d.reason !== 'policy') expect(d).toBe(without);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('A5: NARROWING ONLY, adding a layer never turns a deny into an allow', () => {
    fc.assert(
      fc.property(rolesArb, layersArb, layerArb, reqsArb, (roles, layers, extra, reqs) => {
        const base = createGrant({ roles, layers });
        const appended = createGrant({ roles, layers: [...layers, extra] });
        const prepended = createGrant({ roles, layers: [extra, ...layers] });
        for (const q of reqs) {
          if (!ask(base, q).allowed) {
            expect(ask(appended, q).allowed).toBe(false);
            expect(ask(prepended, q).allowed).toBe(false);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('A3: NARROWING ONLY, nothing is allowed that the role cap alone denies', () => {
    fc.assert(
      fc.property(rolesArb, layersArb, reqsArb, (roles, layers, reqs) => {
        const cap = createGrant({ roles });
        const g = createGrant({ roles, layers });
        for (const q of reqs) {
          if (ask(g, q).allowed) expect(ask(cap, q)).toBe(ALLOW);
          if (ask(cap, q) === DENY_ROLE) expect(ask(g, q)).toBe(DENY_ROLE);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('A4: MORE SPECIFIC DECIDES, a new org or repo entry changes decisions only on that resource (and repos of that org)', () => {
    const specificEntry = entryArb.filter((e) => e.resource !== undefined);
    fc.assert(
      fc.property(rolesArb, layerArb, specificEntry, layersArb, reqsArb, (roles, own, entry, parents, reqs) => {
        const added = dedupe([entry], new Set(own.flatMap((e) => e.permissions.map((p) => `${(e.resource ?? '').toLowerCase()} ${p}`))));
        fc.pre(added.length === 1);
        const before = createGrant({ roles, layers: [own, ...parents] });
        const after = createGrant({ roles, layers: [[...own, ...added], ...parents] });
        const target = (entry.resource as string).toLowerCase();
        const targetIsOrg = !target.includes('/');
        for (const q of reqs) {
          const key = q.resource.toLowerCase();
          const touched = key === target || (targetIsOrg && key.split('/')[0] === target && key.includes('/'));
          if (!touched) expect(ask(after, q)).toBe(ask(before, q));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('A5: layer order does not change any decision', () => {
    fc.assert(
      fc.property(rolesArb, layersArb, reqsArb, (roles, layers, reqs) => {
        const g = createGrant({ roles, layers });
        const r = createGrant({ roles, layers: [...layers].reverse() });
        for (const q of reqs) expect(ask(r, q)).toBe(ask(g, q));
      }),
      { numRuns: 200 },
    );
  });

  it('A1: authorize never throws and answers invalid for arbitrary junk', () => {
    const g = createGrant({ roles: { orgs: { acme: 'owner' } } });
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (resource, permission, thing) => {
        const d = authorize(g, resource as never, permission as never, thing as never);
        expect(DECISIONS).toContain(d);
        if (typeof resource !== 'string' || typeof permission !== 'string') expect(d).toBe(DENY_INVALID);
      }),
      { numRuns: 500 },
    );
  });
});
