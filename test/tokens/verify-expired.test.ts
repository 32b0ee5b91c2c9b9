/**
 * Issue 18, item 7, in the token layer: a token refused as `expired` after its
 * signature, issuer and claims verified has its claims known (internally, beside
 * the error), so the service can report which token is still in use. A token
 * whose signature does not verify never has any.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import { generateKeyRing, mintToken, newTokenId, expiredClaimsOf, TokenVerifier } from '../../src/tokens';
import { NOW_SEC as NOW } from '../support/clock';
import { rejection } from '../support/errors';

const ISS = 'https://svc.test';

describe('expiredClaimsOf', () => {
  it('gives the verified claims of an expired token, on a fresh verify and on a cached signature', async () => {
    for (const alg of ['EdDSA', 'ES256', 'HS256'] as const) {
      const ring = await generateKeyRing({ alg });
      const jti = newTokenId();
      const token = await mintToken(ring, { kind: 'pat', iss: ISS, sub: 'alice', jti, iat: NOW, exp: NOW + 60 });
      const fresh = new TokenVerifier({ ring, issuer: ISS });
      const cold = await rejection(fresh.verify(token, NOW + 61));
      expect(cold).toBeInstanceOf(AuthenticationError);
      expect(cold).toMatchObject({ reason: 'expired' });
      expect(expiredClaimsOf(cold)).toEqual({ kind: 'pat', iss: ISS, sub: 'alice', jti, iat: NOW, exp: NOW + 60 });
      expect(fresh.cachedCount).toBe(0); // an expired token never enters the cache

      const warm = new TokenVerifier({ ring, issuer: ISS });
      await warm.verify(token, NOW);
      let hot: unknown;
      try {
        warm.verifyCached(token, NOW + 60);
      } catch (err) {
        hot = err;
      }
      expect(expiredClaimsOf(hot)?.jti).toBe(jti);
    }
  });

  it('gives nothing for a bad signature, another issuer, another ring or any other error', async () => {
    const ring = await generateKeyRing();
    const token = await mintToken(ring, { kind: 'pat', iss: ISS, sub: 'alice', jti: newTokenId(), iat: NOW, exp: NOW + 60 });
    const tampered = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const v = new TokenVerifier({ ring, issuer: ISS });
    for (const err of [
      await rejection(v.verify(tampered, NOW + 61)),
      await rejection(new TokenVerifier({ ring, issuer: 'https://other.test' }).verify(token, NOW + 61)),
      await rejection(new TokenVerifier({ ring: await generateKeyRing(), issuer: ISS }).verify(token, NOW + 61)),
      await rejection(v.verify('not.a.token', NOW)),
    ]) {
      expect(err).toBeInstanceOf(AuthenticationError);
      expect((err as AuthenticationError).reason).not.toBe('expired');
      expect(expiredClaimsOf(err)).toBeUndefined();
    }
    expect(expiredClaimsOf(new AuthenticationError('expired'))).toBeUndefined();
    expect(expiredClaimsOf('expired')).toBeUndefined();
  });
});
