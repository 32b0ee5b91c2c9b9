/**
 * Hostile tokens in the name of a trusted issuer (T10), against a real node:http IdP
 * on loopback: each test is named for the attack, and each is refused with its typed
 * reason. The good cases beside them (RS256, EdDSA, high-S ES256, `aud` arrays) show
 * the refusals are not a verifier that refuses everything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SignJWT, exportSPKI, importJWK, type CryptoKey } from 'jose';
import { ForbiddenError } from '../../src/errors';
import { testAuth } from '../support/auth';
import { NOW_SEC } from '../support/clock';
import { rejection } from '../support/errors';
import { highS, withHeader } from '../support/key-server';
import { AUDIENCE, issuerSetup, reasonOf, type IssuerSetup } from '../support/issuer-fixture';

let s: IssuerSetup;
afterEach(async () => {
  await s.ks.close();
});

describe('trusted issuer: what verifies', () => {
  it('RS256, ES256 and EdDSA keys of the issuer verify; keys found by RFC 8414 discovery (issuer path appended)', async () => {
    s = await issuerSetup();
    // All published before the first token: a kid that appears later waits for the cooldown (issuer-keys.test.ts).
    const keys = [await s.ks.key('RS256', 'k-rs', true), await s.ks.key('EdDSA', 'k-ed', true), s.ks.first];
    for (const key of keys) {
      const p = await s.auth.authenticate(await s.ks.sign(key, s.claims()));
      expect([p.kind, p.userId]).toEqual(['session', s.user('alice')]);
    }
    expect(s.ks.hits.discovery).toBe(1);
  });

  it('high-S ES256 from another issuer is accepted: the low-S rule (T2) is for tokens this library mints', async () => {
    s = await issuerSetup();
    const token = highS(await s.ks.sign(s.ks.first, s.claims()));
    expect((await s.auth.authenticate(token)).userId).toBe(s.user('alice'));
  });

  it('aud as an array that contains the audience is accepted; typ absent, JWT and application/at+jwt are access tokens', async () => {
    s = await issuerSetup();
    await s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ aud: ['https://other.test', AUDIENCE] })));
    for (const typ of [null, 'JWT', 'application/at+jwt', 'AT+JWT']) {
      await s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ jti: String(typ) }), { typ }));
    }
  });

  it('a token without kid verifies against each fitting key of the set (several ES256 keys published)', async () => {
    s = await issuerSetup();
    const second = await s.ks.key('ES256', 'second', true);
    expect((await s.auth.authenticate(await s.ks.sign(second, s.claims(), { kid: null }))).userId).toBe(s.user('alice'));
    const stranger = await s.ks.key('ES256', 'stranger');
    expect(await reasonOf(s.auth, await s.ks.sign(stranger, s.claims(), { kid: null }))).toBe('signature');
  });

  it('a verified token stays hot (no second verification) and still expires on time', async () => {
    s = await issuerSetup();
    const token = await s.ks.sign(s.ks.first, s.claims());
    await s.auth.authenticate(token);
    s.ks.down = true; // a second verification could not even fetch keys
    await s.auth.authenticate(token);
    s.clock.advance(300_000);
    expect(await reasonOf(s.auth, token)).toBe('expired');
  });
});

describe('trusted issuer: hostile tokens', () => {
  it('alg none is refused (algorithm), before any key is fetched', async () => {
    s = await issuerSetup();
    const good = await s.ks.sign(s.ks.first, s.claims());
    expect(await reasonOf(s.auth, withHeader(good, { alg: 'none', typ: 'at+jwt' }, ''))).toBe('algorithm');
    expect(s.ks.hits).toEqual({ discovery: 0, jwks: 0, other: 0 });
  });

  it("algorithm confusion: HS256 signed with the issuer's public key as the secret is refused (algorithm)", async () => {
    s = await issuerSetup();
    const pem = await exportSPKI(await importPublic(s));
    const forged = await new SignJWT(s.claims())
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: s.ks.first.kid })
      .sign(new TextEncoder().encode(pem));
    expect(await reasonOf(s.auth, forged)).toBe('algorithm');
  });

  it('an algorithm outside the issuer list is refused (algorithm)', async () => {
    s = await issuerSetup({ algorithms: ['RS256'] });
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims()))).toBe('algorithm');
  });

  it('a forged signature (a key of our own under the issuer kid) is refused (signature)', async () => {
    s = await issuerSetup();
    const mine = await s.ks.key('ES256', 'attacker');
    expect(await reasonOf(s.auth, await s.ks.sign(mine, s.claims(), { kid: s.ks.first.kid }))).toBe('signature');
  });

  it('a tampered payload (role claims swapped in) is refused (signature)', async () => {
    s = await issuerSetup();
    const [h, , sig] = (await s.ks.sign(s.ks.first, s.claims())).split('.');
    const body = Buffer.from(JSON.stringify(s.claims({ sub: 'root' }))).toString('base64url');
    expect(await reasonOf(s.auth, `${h}.${body}.${sig}`)).toBe('signature');
  });

  it('key injection: a key embedded (jwk) or linked (jku, x5u) in the header is never used nor fetched', async () => {
    s = await issuerSetup();
    const mine = await s.ks.key('ES256', 'mine');
    const token = await new SignJWT(s.claims())
      .setProtectedHeader({
        alg: 'ES256',
        typ: 'at+jwt',
        kid: 'mine',
        jwk: mine.publicJwk,
        jku: `${s.ks.origin}/evil`,
        x5u: `${s.ks.origin}/evil.pem`,
      })
      .sign(mine.privateKey);
    expect(await reasonOf(s.auth, token)).toBe('key');
    expect(s.ks.hits.other).toBe(0);
  });

  it('an unknown kid is refused (key)', async () => {
    s = await issuerSetup();
    const stranger = await s.ks.key('ES256', 'never-published');
    expect(await reasonOf(s.auth, await s.ks.sign(stranger, s.claims()))).toBe('key');
  });

  it('a token naming an untrusted issuer is refused (issuer) and fetches nothing', async () => {
    s = await issuerSetup();
    const token = await s.ks.sign(s.ks.first, s.claims({ iss: 'https://evil.example' }));
    expect(await reasonOf(s.auth, token)).toBe('issuer');
    expect(s.ks.hits).toEqual({ discovery: 0, jwks: 0, other: 0 });
  });

  it('token passthrough: missing aud, or an aud of another API, is refused (audience)', async () => {
    s = await issuerSetup();
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ aud: undefined })))).toBe('audience');
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ aud: 'https://billing.test' })))).toBe('audience');
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ aud: ['https://billing.test'] })))).toBe('audience');
  });

  it('replay after expiry is refused (expired), and a token without exp is refused (malformed)', async () => {
    s = await issuerSetup();
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ exp: NOW_SEC })))).toBe('expired');
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ exp: undefined })))).toBe('malformed');
  });

  it('a token used before its nbf is refused (not_yet_valid); within the clock tolerance it is accepted', async () => {
    s = await issuerSetup();
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ nbf: NOW_SEC + 60 })))).toBe('not_yet_valid');
    await s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ nbf: NOW_SEC + 5 })));
  });

  it('an ID token presented as an access token is refused when its typ says so (type)', async () => {
    s = await issuerSetup();
    for (const typ of ['id_token+jwt', 'application/id_token+jwt', 'logout+jwt', 'dpop+jwt']) {
      expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims(), { typ }))).toBe('type');
    }
  });

  it('a stolen sender-constrained token is not accepted as a bearer token: DPoP-bound (bound), mTLS-bound (type)', async () => {
    s = await issuerSetup();
    const jkt = { jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' };
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ cnf: jkt })))).toBe('bound');
    const mtls = { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' };
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ cnf: mtls })))).toBe('type');
  });

  it("an IdP cannot mint this service's own tokens: a foreign token with an svc-auth typ is left to the own verifier and refused", async () => {
    s = await issuerSetup();
    for (const typ of ['svc-session+jwt', 'svc-pat+jwt']) {
      expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims(), { typ }))).toBe('malformed');
    }
  });

  it('a user id claim that is no user id here (missing, not a string, spaces, a pipe without identityOf) is refused (malformed)', async () => {
    s = await issuerSetup();
    for (const sub of [undefined, 42, 'a b', 'auth0|123', 'x'.repeat(257)]) {
      expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ sub })))).toBe('malformed');
    }
  });

  it('a scope claim that is not words (an object) is refused (malformed), not read as full access', async () => {
    s = await issuerSetup();
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ scope: { 'repo:admin': true } })))).toBe('malformed');
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ scp: [1, 2] })))).toBe('malformed');
  });

  it('scope and scp together narrow to what both grant; a narrowed session is refused management (ForbiddenError)', async () => {
    s = await issuerSetup();
    const token = await s.ks.sign(s.ks.first, s.claims({ scope: 'repo:read repo:write', scp: ['repo:read'] }));
    const p = await s.auth.authenticate(token);
    expect(s.auth.authorize(p, 'acme/web', 'repo:read').allowed).toBe(true);
    expect(s.auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    expect(await rejection(s.auth.client(p).token.create({ name: 'x' }))).toBeInstanceOf(ForbiddenError);
  });

  it('with identityOf, an Auth0-style sub (auth0|123) is a user id', async () => {
    s = await issuerSetup({}, { identityOf: (u) => `svc:default/users/Identity/${u.replace('|', '-')}` });
    s.roles.set('auth0|123', { orgs: { acme: 'viewer' } });
    const p = await s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ sub: 'auth0|123' })));
    expect(s.auth.authorize(p, 'acme/web', 'repo:read').allowed).toBe(true);
  });

  it('an instance without trustedIssuers refuses every IdP token as before (type), fetching nothing', async () => {
    s = await issuerSetup();
    const { auth: plain } = await testAuth({ clock: s.clock });
    expect(await reasonOf(plain, await s.ks.sign(s.ks.first, s.claims()))).toBe('type');
    expect(s.ks.hits).toEqual({ discovery: 0, jwks: 0, other: 0 });
  });
});

async function importPublic(setup: IssuerSetup): Promise<CryptoKey> {
  return (await importJWK({ ...setup.ks.first.publicJwk, alg: 'ES256' }, 'ES256')) as CryptoKey;
}
