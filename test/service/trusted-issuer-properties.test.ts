/**
 * The narrowing invariant of trusted-issuer sessions (T10), as a property: whatever
 * roles the user holds and whatever `scope`/`scp` claim the IdP wrote, a decision
 * for the session never allows what the roles alone deny, nor a permission its scope
 * does not name when the claim narrows (any word but OpenID Connect's own), and
 * `issuedBy.permissions` says what was granted. The reference for the roles is the
 * policy core with no layer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { authorize, createGrant, type UserRoles } from '../../src/core/policy';
import { PERMISSIONS, ROLES, type Permission } from '../../src/core/vocabulary';
import { issuerSetup, type IssuerSetup } from '../support/issuer-fixture';

const ORGS = ['acme', 'beta'];
const REPOS = ['acme/w', 'acme/x', 'beta/y'];
const RESOURCES = [...ORGS, ...REPOS];
/** OpenID Connect's own names: they say nothing about svc permissions (a claim of only these does not narrow). */
const SILENT = ['openid', 'email', 'profile', 'offline_access'];
/** Words nobody here reads: they narrow (to the svc names beside them), never widen. */
const UNREAD = ['repo:*', 'REPO:READ', 'api://svc/read', 'role:owner'];
const NOISE = [...SILENT, ...UNREAD];

const role = fc.constantFrom(...ROLES);
const rolesArb: fc.Arbitrary<UserRoles> = fc.record({
  orgs: fc.dictionary(fc.constantFrom(...ORGS), role, { maxKeys: 2 }),
  repos: fc.dictionary(fc.constantFrom(...REPOS), role, { maxKeys: 3 }),
});

/** A claim as IdPs write it: absent, a space-separated `scope`, an `scp` array (Okta) or string (Entra). */
const claimArb = fc
  .tuple(fc.subarray([...PERMISSIONS]), fc.subarray(NOISE))
  .chain(([perms, noise]) =>
    fc.tuple(
      fc.constant(perms),
      fc.shuffledSubarray([...perms, ...noise], { minLength: perms.length + noise.length }),
      fc.constantFrom('none', 'scope', 'scp-array', 'scp-string'),
    ),
  )
  .map(([perms, words, form]) => {
    const claim: Record<string, unknown> =
      form === 'none'
        ? {}
        : form === 'scope'
          ? { scope: words.join(' ') }
          : form === 'scp-array'
            ? { scp: words }
            : { scp: words.join(' ') };
    const narrows = form !== 'none' && words.some((w) => !SILENT.includes(w));
    return { granted: narrows ? new Set<string>(perms) : null, claim };
  });

let s: IssuerSetup;
let serial = 0;
beforeAll(async () => {
  s = await issuerSetup();
});
afterAll(async () => {
  await s.ks.close();
});

describe('trusted-issuer session narrowing (property)', () => {
  it('never allows more than the user roles, nor more than its scope claim', async () => {
    let allowed = 0;
    await fc.assert(
      fc.asyncProperty(
        rolesArb,
        claimArb,
        fc.constantFrom(...RESOURCES),
        fc.constantFrom(...PERMISSIONS),
        async (roles, c, resource, permission) => {
          s.roles.set('carol', roles);
          const token = await s.ks.sign(s.ks.first, s.claims({ sub: 'carol', jti: `p${++serial}`, ...c.claim }));
          const p = await s.auth.authenticate(token);
          expect(p.issuedBy?.permissions === null ? null : new Set(p.issuedBy?.permissions)).toEqual(c.granted);
          const decision = s.auth.authorize(p, resource, permission);
          if (!decision.allowed) return;
          allowed++;
          expect(authorize(createGrant({ roles }), resource, permission).allowed).toBe(true);
          if (c.granted !== null) expect(c.granted.has(permission as Permission)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    expect(allowed).toBeGreaterThan(0); // not vacuous
  });

  it('without a scope claim it is exactly as strong as the roles (a session)', async () => {
    await fc.assert(
      fc.asyncProperty(rolesArb, fc.constantFrom(...RESOURCES), fc.constantFrom(...PERMISSIONS), async (roles, resource, permission) => {
        s.roles.set('carol', roles);
        const p = await s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ sub: 'carol', jti: `q${++serial}` })));
        expect(s.auth.authorize(p, resource, permission).allowed).toBe(authorize(createGrant({ roles }), resource, permission).allowed);
      }),
      { numRuns: 150 },
    );
  });
});
