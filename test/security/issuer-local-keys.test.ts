/**
 * A trusted issuer with `jwks` (its public keys given, as `svc serve` hands its own
 * authorization server's): tokens verify with no request to the issuer at all, and a
 * key not in the set is refused, never fetched.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAuth, type Auth } from '../../src/service';
import { generateKeyRing } from '../../src/tokens';
import { AUDIENCE, issuerSetup, reasonOf, type IssuerSetup } from '../support/issuer-fixture';

let s: IssuerSetup;
let auth: Auth;
beforeEach(async () => {
  s = await issuerSetup();
  const k = s.ks.first;
  auth = createAuth({
    issuer: 'https://svc.test',
    keys: await generateKeyRing(),
    members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
    now: s.clock.now,
    trustedIssuers: [{ issuer: s.ks.issuer, audience: AUDIENCE, jwks: { keys: [{ ...k.publicJwk, kid: k.kid, alg: k.alg }] } }],
  });
});
afterEach(async () => {
  await s.ks.close();
});

describe('trusted issuer with a local key set (jwks)', () => {
  it('own-JWKS fetch: a token of a given key verifies with no discovery and no JWKS request', async () => {
    const token = await s.ks.sign(s.ks.first, s.claims({ jti: 'local-1' }));
    expect((await auth.authenticate(token)).userId).toBe(s.user('alice'));
    expect(s.ks.hits).toEqual({ discovery: 0, jwks: 0, other: 0 });
  });

  it('a key the issuer publishes but the set does not name is refused without a fetch', async () => {
    const other = await s.ks.key('ES256', 'rotated-in', true);
    const token = await s.ks.sign(other, s.claims({ jti: 'local-2' }));
    expect(await reasonOf(auth, token)).toBe('key');
    expect(s.ks.hits).toEqual({ discovery: 0, jwks: 0, other: 0 });
  });
});
