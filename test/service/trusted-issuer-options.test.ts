/**
 * `trustedIssuers` is checked when createAuth builds the object (T10): every problem
 * of every entry in one ValidationError, at its path, before any request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createAuth } from '../../src/service';
import { generateKeyRing, type KeyRing, type TrustedIssuer } from '../../src/tokens';
import { issuesOf, pathsOf } from '../support/errors';

let keys: KeyRing;
beforeAll(async () => {
  keys = await generateKeyRing();
});

/** Every algorithm docs/identity-providers.md lists for `algorithms`. */
const DOCUMENTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'] as const;

const build = (trustedIssuers: unknown) =>
  createAuth({ issuer: 'https://svc.test', keys, members: { rolesOf: () => ({}) }, trustedIssuers: trustedIssuers as TrustedIssuer[] });

describe('trustedIssuers option', () => {
  it('accepts https issuers, http on loopback only, and the documented fields', () => {
    expect(() =>
      build([
        { issuer: 'https://acme.eu.auth0.com/', audience: 'https://api.example.com' },
        { issuer: 'https://sso.example.com/realms/acme', audience: 'account', userIdClaim: 'preferred_username', algorithms: ['RS256'] },
        { issuer: 'http://127.0.0.1:8080', audience: 'api', jwksUri: 'http://127.0.0.1:8080/keys' },
        { issuer: 'http://localhost:9000/issuer', audience: 'api', userIdClaim: 'https://example.com/uid' },
        { issuer: 'http://[::1]:9000', audience: 'api', algorithms: [...DOCUMENTED_ALGORITHMS] },
      ]),
    ).not.toThrow();
    expect(() => build([])).not.toThrow();
  });

  it('reports every problem of every entry at once, at its path', () => {
    const paths = pathsOf(() =>
      build([
        { issuer: 'http://idp.example.com', audience: '' },
        { issuer: 'https://idp.example.com?tenant=1', audience: 'api', jwksUri: 'ftp://idp.example.com/keys' },
        { issuer: 'https://idp.example.com#x', audience: 'api', userIdClaim: '__proto__' },
        { issuer: 'https://u:p@idp.example.com', audience: 'api', algorithms: ['HS256'] },
        { issuer: 'not a url', audience: 'api', algorithms: [] },
        { issuer: 'https://ok.example.com', audience: 'api', extra: true },
        'https://idp.example.com',
      ]),
    );
    expect(paths).toEqual([
      'trustedIssuers[0].issuer',
      'trustedIssuers[0].audience',
      'trustedIssuers[1].issuer',
      'trustedIssuers[1].jwksUri',
      'trustedIssuers[2].issuer',
      'trustedIssuers[2].userIdClaim',
      'trustedIssuers[3].issuer',
      'trustedIssuers[3].algorithms',
      'trustedIssuers[4].issuer',
      'trustedIssuers[4].algorithms',
      'trustedIssuers[5].extra',
      'trustedIssuers[6]',
    ]);
  });

  it('no audience, no trust: audience is required', () => {
    const issues = issuesOf(() => build([{ issuer: 'https://idp.example.com' }]));
    expect(issues.map((i) => [i.pathText, i.message])).toEqual([['trustedIssuers[0].audience', expect.stringMatching(/required/)]]);
  });

  it('algorithm confusion is closed at configuration too: none and HMAC are no issuer algorithms', () => {
    for (const alg of ['none', 'HS256', 'HS512', 'ES512', 'RSA-OAEP']) {
      expect(pathsOf(() => build([{ issuer: 'https://idp.example.com', audience: 'api', algorithms: [alg] }]))).toEqual([
        'trustedIssuers[0].algorithms',
      ]);
    }
  });

  it("refuses a duplicate issuer, this instance's own issuer, more than 16 issuers, and a non-array", () => {
    expect(
      pathsOf(() =>
        build([
          { issuer: 'https://idp.example.com', audience: 'a' },
          { issuer: 'https://idp.example.com', audience: 'b' },
        ]),
      ),
    ).toEqual(['trustedIssuers[1].issuer']);
    expect(pathsOf(() => build([{ issuer: 'https://svc.test', audience: 'a' }]))).toEqual(['trustedIssuers[0].issuer']);
    const many = Array.from({ length: 17 }, (_, i) => ({ issuer: `https://idp${i}.example.com`, audience: 'a' }));
    expect(pathsOf(() => build(many))).toEqual(['trustedIssuers']);
    expect(pathsOf(() => build({ issuer: 'https://idp.example.com', audience: 'a' }))).toEqual(['trustedIssuers']);
  });

  it('jwks: public keys only, at most 16, and not with jwksUri', () => {
    const pub = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' };
    const at = (entry: Record<string, unknown>) => pathsOf(() => build([{ issuer: 'https://idp.example.com', audience: 'api', ...entry }]));
    expect(() => build([{ issuer: 'https://idp.example.com', audience: 'api', jwks: { keys: [pub] } }])).not.toThrow();
    // A private key given as the issuer's: refused, whichever private member it carries.
    expect(at({ jwks: { keys: [{ ...pub, d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A' }] } })).toEqual(['trustedIssuers[0].jwks']);
    expect(at({ jwks: { keys: [pub, { kty: 'oct', k: 'c2VjcmV0' }] } })).toEqual(['trustedIssuers[0].jwks']);
    expect(at({ jwks: { keys: [pub] }, jwksUri: 'https://idp.example.com/keys' })).toEqual(['trustedIssuers[0].jwks']);
    expect(at({ jwks: { keys: Array.from({ length: 17 }, (_, i) => ({ ...pub, kid: `k${i}` })) } })).toEqual(['trustedIssuers[0].jwks']);
    for (const bad of [{ keys: [] }, { keys: 'x' }, [pub], { keys: [{ crv: 'Ed25519' }] }, null]) {
      expect(at({ jwks: bad })).toEqual(['trustedIssuers[0].jwks']);
    }
  });

  it('is collected together with the other options problems', () => {
    const paths = pathsOf(() =>
      createAuth({ issuer: '', keys, members: { rolesOf: () => ({}) }, trustedIssuers: [{ issuer: 'x', audience: 'a' }] }),
    );
    expect(paths).toEqual(['issuer', 'trustedIssuers[0].issuer']);
  });
});
