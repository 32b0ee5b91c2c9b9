/**
 * Issue 18, item 5: a principal made by another `Auth` instance carries a real
 * grant (the other instance's members and store), but it decides nothing here.
 * Every entry point that takes a principal refuses one it did not make:
 * `authorize` answers `invalid` (A1: it never throws), the others throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { authorize as policyAuthorize, type Principal } from '../../src/core/policy';
import { reportDenied, type AuthEvent } from '../../src/service';
import { PERMISSIONS } from '../../src/core/vocabulary';
import { testAuth } from '../support/auth';

const INVALID = { allowed: false, reason: 'invalid' };

/** Two instances on one key ring and issuer: A's members give mallory nothing, B's make mallory an owner. */
async function twoInstances() {
  const events: AuthEvent[] = [];
  const a = await testAuth({ onEvent: (e) => void events.push(e) });
  const b = await testAuth();
  b.roles.set('mallory', { orgs: { acme: 'owner' } });
  const onB = await b.auth.authenticate(await b.auth.issueSession('mallory'));
  const pat = await b.auth.client(onB).token.create({ name: 'ci' });
  const patOnB = await b.auth.authenticate(pat.token);
  return { a, b, events, onB, patOnB, patToken: pat.token };
}

describe('foreign principals (issue 18, item 5)', () => {
  it("another Auth's principal is invalid for authorize, although its own Auth allows it and this one would deny", async () => {
    const { a, b, onB, patOnB } = await twoInstances();
    for (const p of [onB, patOnB]) {
      expect(b.auth.authorize(p, 'acme/web', 'repo:admin')).toEqual({ allowed: true });
      // What the foreign grant says, had it been taken at its word:
      expect(policyAuthorize(p, 'acme/web', 'repo:admin')).toEqual({ allowed: true });
      expect(a.auth.authorize(p, 'acme/web', 'repo:admin')).toEqual(INVALID);
      expect(a.auth.authorize(p, 'acme/web', 'repo:read')).toEqual(INVALID);
      expect(a.auth.authorize(p, 'acme', 'org:admin', undefined)).toEqual(INVALID);
    }
  });

  it('the same token authenticated by this Auth is decided by its own members (nothing for mallory here)', async () => {
    const { a, patToken } = await twoInstances();
    // Same key ring and issuer, but A's store does not hold B's record: A refuses the token itself.
    await expect(a.auth.authenticate(patToken)).rejects.toMatchObject({ reason: 'unknown' });
    const onA = await a.auth.authenticate(await a.auth.issueSession('mallory'));
    expect(a.auth.authorize(onA, 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'role' });
  });

  it("client, committer and principal-taking calls throw ValidationError for another Auth's principal", async () => {
    const { a, onB, patOnB } = await twoInstances();
    for (const p of [onB, patOnB]) {
      expect(() => a.auth.client(p)).toThrow(ValidationError);
      expect(() => a.auth.committer(p)).toThrow(ValidationError);
      expect(() => a.auth.committer(p, 'svc:acme/users/Identity/bot')).toThrow(ValidationError);
    }
  });

  it("reportDenied of another Auth's principal is reported with an unknown actor: what it says of itself is not repeated", async () => {
    const { a, events, patOnB } = await twoInstances();
    const d = a.auth.authorize(patOnB, 'acme/web', 'repo:write');
    if (d.allowed) throw new Error('expected a deny');
    reportDenied(a.auth, patOnB, 'acme/web', 'repo:write', d.reason);
    await a.auth.flush();
    expect(events).toEqual([
      expect.objectContaining({
        type: 'access.denied',
        actor: { kind: 'unknown', userId: null, tokenId: null, tokenName: null },
        reason: 'invalid',
      }),
    ]);
  });

  it('property: a principal decides only in the Auth that made it; everywhere else it is invalid', async () => {
    const { a, b, onB, patOnB } = await twoInstances();
    a.roles.set('mallory', { orgs: { acme: 'viewer' } });
    const onA = await a.auth.authenticate(await a.auth.issueSession('mallory'));
    const own = new Map<Principal, typeof a.auth>([
      [onA, a.auth],
      [onB, b.auth],
      [patOnB, b.auth],
    ]);
    const principals = [...own.keys()];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...principals),
        fc.constantFrom(a.auth, b.auth),
        fc.constantFrom('acme/web', 'acme', 'other/x', 'ACME/Web', ''),
        fc.constantFrom(...PERMISSIONS, 'repo:nope'),
        fc.option(fc.constantFrom('Doc/a', 'Doc/../x'), { nil: undefined }),
        async (p, auth, resource, permission, thing) => {
          const d = auth.authorize(p, resource, permission, thing);
          if (own.get(p) === auth) expect(d).toEqual(policyAuthorize(p, resource, permission, thing));
          else expect(d).toEqual(INVALID);
        },
      ),
    );
  });
});
