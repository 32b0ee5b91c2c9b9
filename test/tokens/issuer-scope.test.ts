/**
 * How a trusted issuer's `scope`/`scp` claim is read (T10), by the issuer's option:
 * only svc names and words nobody reads narrow under 'narrow'; 'ignore' reads nothing;
 * a map grants what it says; a recorded issuer (svc-auth's own authorization server) is
 * narrowed by any scope claim, an empty one included (nothing granted: a third-party
 * client's token that was approved nothing must deny everything).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { IssueInput } from '../../src/errors';
import { PERMISSIONS } from '../../src/core/vocabulary';
import { checkScopeReading } from '../../src/tokens/issuers/reading';
import { OIDC_SCOPES, scopePermissions } from '../../src/tokens/issuers/scope';

function reading(entry: Record<string, unknown>, recorded = false) {
  const issues: IssueInput[] = [];
  const r = checkScopeReading(entry, recorded, (f) => ['trustedIssuers', 0, f], issues);
  expect(issues).toEqual([]);
  return r;
}

describe('the scope claim of a trusted issuer', () => {
  it("'narrow': OIDC names say nothing, svc names narrow to themselves, unread words narrow to what is beside them", () => {
    const r = reading({});
    expect(scopePermissions({ scope: 'openid profile email offline_access' }, r)).toEqual({ permissions: null, claim: null });
    expect(scopePermissions({ scope: '' }, r)).toEqual({ permissions: null, claim: null });
    expect(scopePermissions({ scope: 'openid repo:read' }, r)).toEqual({ permissions: ['repo:read'], claim: 'scope' });
    expect(scopePermissions({ scp: ['openid', 'read:messages'] }, r)).toEqual({ permissions: [], claim: 'scp' });
    expect(scopePermissions({ scope: 'repo:read repo:write', scp: 'repo:read email' }, r)).toEqual({
      permissions: ['repo:read'],
      claim: 'scope and scp',
    });
    // A claim that says nothing beside one that narrows: the narrowing one decides.
    expect(scopePermissions({ scope: 'openid', scp: ['repo:write'] }, r)).toEqual({ permissions: ['repo:write'], claim: 'scp' });
  });

  it('a recorded issuer: any scope claim is the consent, and an empty one grants nothing', () => {
    const r = reading({}, true);
    expect(scopePermissions({ scope: '' }, r)).toEqual({ permissions: [], claim: 'scope' });
    expect(scopePermissions({ scope: 'openid' }, r)).toEqual({ permissions: [], claim: 'scope' });
    expect(scopePermissions({ scope: 'repo:read' }, r)).toEqual({ permissions: ['repo:read'], claim: 'scope' });
    // The first-party CLI client's tokens carry no scope: not narrowed.
    expect(scopePermissions({}, r)).toEqual({ permissions: null, claim: null });
  });

  it("'ignore' reads nothing, but a claim that is not words is still refused", () => {
    const r = reading({ scopes: 'ignore' });
    expect(scopePermissions({ scope: 'repo:read read:messages' }, r)).toEqual({ permissions: null, claim: null });
    expect(scopePermissions({ scope: { 'repo:admin': true } }, r)).toBeUndefined();
  });

  it('a map, and ignoredScopes', () => {
    const r = reading({ scopes: { 'read:all': ['repo:read', 'org:read'] }, ignoredScopes: ['api://svc/.default'] });
    expect(scopePermissions({ scope: 'read:all openid' }, r)).toEqual({ permissions: ['repo:read', 'org:read'], claim: 'scope' });
    expect(scopePermissions({ scope: 'api://svc/.default openid' }, r)).toEqual({ permissions: null, claim: null });
    expect(scopePermissions({ scope: 'api://svc/.default repo:write' }, r)).toEqual({ permissions: ['repo:write'], claim: 'scope' });
  });

  it('never grants a permission no word of the claim names or maps to (property)', () => {
    const words = [...PERMISSIONS, ...OIDC_SCOPES, 'read:messages', 'REPO:READ', 'role:owner', ''];
    const r = reading({ scopes: { 'read:messages': ['repo:read'] } });
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 12 }), (claim) => {
        const got = scopePermissions({ scp: claim }, r);
        const granted = got?.permissions ?? [];
        for (const p of granted) expect(claim.includes(p) || (p === 'repo:read' && claim.includes('read:messages'))).toBe(true);
        // Narrowed exactly when some word is neither empty nor OIDC's own.
        expect(got?.permissions === null).toBe(claim.every((w) => w === '' || OIDC_SCOPES.includes(w)));
      }),
    );
  });
});
