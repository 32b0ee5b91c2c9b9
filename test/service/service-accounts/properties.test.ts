/**
 * W2 as a property: whatever scopes an account's PATs (and their children) carry and however its
 * role changes, no decision allowed for one of its credentials is denied by the account's live role
 * alone, and nothing outside its org is ever allowed.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { authorize, createGrant, type Principal } from '../../../src/core/policy';
import type { ScopeEntry } from '../../../src/core/scopes';
import { PERMISSIONS, ROLES, type RoleName } from '../../../src/core/vocabulary';
import { testAuth } from '../../support/auth';

const REPO_PERMISSIONS = PERMISSIONS.filter((p) => p.startsWith('repo:'));
const RESOURCES = ['acme', 'acme/w', 'acme/x', 'beta', 'beta/y'];
const role = fc.constantFrom(...ROLES);

const entryArb: fc.Arbitrary<ScopeEntry> = fc.constantFrom<string | undefined>(undefined, ...RESOURCES).chain((resource) => {
  const isRepo = resource !== undefined && resource.includes('/');
  return fc.subarray([...(isRepo ? REPO_PERMISSIONS : PERMISSIONS)], { minLength: 1 }).map((permissions) => ({
    ...(resource === undefined ? {} : { resource }),
    permissions: [...permissions],
  }));
});
const scopesArb = fc.option(fc.uniqueArray(entryArb, { minLength: 1, maxLength: 4, selector: (e) => e.resource ?? '' }), {
  nil: undefined,
});

describe('W2: a machine credential never exceeds its account', () => {
  it("an account's PATs and their children, under any role changes, allow only what the live role allows, in its org", async () => {
    const { auth } = await testAuth({ everyone: { orgs: { acme: 'owner', beta: 'owner' } } });
    const owner = await auth.principalFor('alice');
    let n = 0;
    await fc.assert(
      fc.asyncProperty(role, scopesArb, scopesArb, role, async (first, parentScopes, childScopes, later) => {
        const name = `bot-${n++}`;
        const org = auth.client(owner).org('acme');
        await org.serviceAccounts.create({ name, role: first });
        const parent = await org.serviceAccount(name).token.create({ name: 'p', ...(parentScopes ? { scopes: parentScopes } : {}) });
        const creds: string[] = [parent.token];
        const p = await auth.authenticate(parent.token);
        // A child made by the account's own PAT, when its scopes narrow the parent's (else refused, which is fine).
        try {
          creds.push((await auth.client(p).token.create({ name: 'c', ...(childScopes ? { scopes: childScopes } : {}) })).token);
        } catch {
          // not narrower: nothing was made
        }
        await org.serviceAccounts.update(name, { role: later });
        const live = createGrant({ roles: { orgs: { acme: later as RoleName } } });
        for (const token of creds) {
          const cred: Principal = await auth.authenticate(token);
          for (const resource of RESOURCES) {
            for (const permission of PERMISSIONS) {
              if (!auth.authorize(cred, resource, permission).allowed) continue;
              expect(resource.startsWith('acme')).toBe(true);
              expect(authorize(live, resource, permission).allowed).toBe(true);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
