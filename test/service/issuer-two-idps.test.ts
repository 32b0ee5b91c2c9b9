/**
 * Attack (issue 28, item 13): one user across two identity providers. OIDC's `sub` is
 * unique per issuer only, so with trusted issuers A and B, B's `sub: alice` is nobody of
 * A's. Before the fix it was A's alice: it listed and revoked the PATs she made through A.
 * The user id is now derived from (issuer, claim) unless the issuer's `userId` maps it.
 * Two real node:http IdPs on loopback, real signatures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuth, type Auth } from '../../src/service';
import { generateKeyRing, type KeyRing } from '../../src/tokens';
import type { UserRoles } from '../../src/core/policy';
import { Clock, NOW_SEC } from '../support/clock';
import { pathsOf } from '../support/errors';
import { startKeyServer, type KeyServer, type SigningKey } from '../support/key-server';
import { AUDIENCE } from '../support/issuer-fixture';

let a: KeyServer & { first: SigningKey };
let b: KeyServer & { first: SigningKey };
let keys: KeyRing;
const clock = new Clock();
const roles = new Map<string, UserRoles>();

beforeAll(async () => {
  [a, b, keys] = await Promise.all([startKeyServer(), startKeyServer(), generateKeyRing()]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});

function authTrusting(extra: { userId?: (claims: Readonly<Record<string, unknown>>) => string } = {}): Auth {
  return createAuth({
    issuer: 'https://svc.test',
    keys,
    now: clock.now,
    members: { rolesOf: (u) => roles.get(u) ?? {} },
    trustedIssuers: [
      { issuer: a.issuer, audience: AUDIENCE, ...extra },
      { issuer: b.issuer, audience: AUDIENCE, ...extra },
    ],
  });
}

function tokenOf(idp: KeyServer & { first: SigningKey }, sub: string, more: Record<string, unknown> = {}): Promise<string> {
  return idp.sign(idp.first, { iss: idp.issuer, aud: AUDIENCE, sub, iat: NOW_SEC, exp: NOW_SEC + 300, ...more });
}

describe('one user across two identity providers', () => {
  it("B's sub: alice is not A's alice: she cannot list, read or revoke the PATs A's alice made", async () => {
    const auth = authTrusting();
    const ofA = await auth.authenticate(await tokenOf(a, 'alice'));
    const ofB = await auth.authenticate(await tokenOf(b, 'alice'));
    expect(ofA.userId).not.toBe(ofB.userId);
    const { token } = await auth.client(ofA).token.create({ name: 'deploy' });

    expect(await auth.client(ofB).token.list()).toEqual([]);
    await expect(auth.client(ofB).token.get('deploy')).rejects.toMatchObject({ code: 'not_found' });
    await expect(auth.client(ofB).token.revoke('deploy')).rejects.toMatchObject({ code: 'not_found' });
    // A's PAT still works: B's alice touched nothing.
    await expect(auth.authenticate(token)).resolves.toMatchObject({ kind: 'pat', userId: ofA.userId });
    expect((await auth.client(ofA).token.list()).map((t) => [t.name, t.status])).toEqual([['deploy', 'active']]);
  });

  it('the derived id names its issuer: <host-port-path>_<sub>, and the principal says where it came from', async () => {
    const auth = authTrusting();
    const p = await auth.authenticate(await tokenOf(b, 'alice', { azp: 'cli-app' }));
    const { host, pathname } = new URL(b.issuer);
    expect(p.userId).toBe(`${host.replace(':', '-')}${pathname.replaceAll('/', '-')}_alice`);
    expect(p.issuedBy).toEqual({ issuer: b.issuer, clientId: 'cli-app', permissions: null });
  });

  it('roles are read under the derived id: a grant to the plain sub does not reach a token of either IdP', async () => {
    roles.set('mallory', { orgs: { acme: 'owner' } });
    try {
      const auth = authTrusting();
      const p = await auth.authenticate(await tokenOf(b, 'mallory'));
      expect(auth.authorize(p, 'acme', 'org:admin')).toEqual({ allowed: false, reason: 'role' });
      expect(auth.authorize(await auth.principalFor('mallory'), 'acme', 'org:admin')).toEqual({ allowed: true });
    } finally {
      roles.delete('mallory');
    }
  });

  it('userId maps both IdPs onto one user on purpose (a claim both write the same way), and is checked', async () => {
    const auth = authTrusting({ userId: (c) => String(c['https://svc.test/uid']) });
    const ofA = await auth.authenticate(await tokenOf(a, 'a-123', { 'https://svc.test/uid': 'alice' }));
    const ofB = await auth.authenticate(await tokenOf(b, 'b-987', { 'https://svc.test/uid': 'alice' }));
    expect([ofA.userId, ofB.userId]).toEqual(['alice', 'alice']);
    // A mapping that finds no valid id refuses the token (malformed), never an allow.
    await expect(auth.authenticate(await tokenOf(a, 'a-123', { 'https://svc.test/uid': 'a b' }))).rejects.toMatchObject({
      reason: 'malformed',
    });
    const throwing = authTrusting({
      userId: () => {
        throw new Error('no uid claim: eyJsecret');
      },
    });
    const err = await throwing.authenticate(await tokenOf(a, 'alice')).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'malformed' });
    expect(String((err as Error).message)).not.toContain('eyJ');
  });

  it('two issuers that would derive the same ids, or userId beside userIdClaim or on a recorded issuer, are refused when createAuth builds', () => {
    const build = (trustedIssuers: unknown[]) => () =>
      createAuth({ issuer: 'https://svc.test', keys, members: { rolesOf: () => ({}) }, trustedIssuers: trustedIssuers as never });
    expect(
      pathsOf(
        build([
          { issuer: 'https://sso.example.com/a/b', audience: 'api' },
          { issuer: 'https://sso.example.com/a-b', audience: 'api' },
        ]),
      ),
    ).toEqual(['trustedIssuers[1].issuer']);
    expect(() =>
      build([
        { issuer: 'https://sso.example.com/a/b', audience: 'api' },
        { issuer: 'https://sso.example.com/a-b', audience: 'api', userId: (c: Record<string, unknown>) => String(c['uid']) },
      ])(),
    ).not.toThrow();
    expect(
      pathsOf(
        build([
          { issuer: 'https://one.example.com', audience: 'api', userIdClaim: 'oid', userId: () => 'x' },
          { issuer: 'https://two.example.com', audience: 'api', recorded: true, userId: () => 'x' },
          { issuer: 'https://three.example.com', audience: 'api', userId: 'sub' },
        ]),
      ),
    ).toEqual(['trustedIssuers[0].userId', 'trustedIssuers[1].userId', 'trustedIssuers[2].userId']);
  });
});
