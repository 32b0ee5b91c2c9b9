import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, type AuthenticationReason } from '../../src/errors';
import { newTokenId, generateKeyRing, mintToken, type TokenClaims, TokenVerifier } from '../../src/tokens';
import { NOW_SEC as NOW } from '../support/clock';

const ISS = 'https://svc.test';
const HOUR = 3600;

function claims(over: Partial<TokenClaims> = {}): TokenClaims {
  return { kind: 'pat', iss: ISS, sub: 'u1', jti: newTokenId(), iat: NOW, exp: NOW + HOUR, ...over };
}

async function setup(cacheSize = 100) {
  const ring = await generateKeyRing();
  const verifier = new TokenVerifier({ ring, issuer: ISS, cacheSize, clockToleranceSec: 5 });
  return { ring, verifier };
}

function reasonOfSync(f: () => unknown): AuthenticationReason | 'returned' {
  try {
    f();
    return 'returned';
  } catch (err) {
    expect(err).toBeInstanceOf(AuthenticationError);
    return (err as AuthenticationError).reason;
  }
}

describe('TokenVerifier.verifyCached', () => {
  it('T2: a token never verified is a miss (undefined), even a genuine one', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    expect(verifier.verifyCached(token, NOW)).toBeUndefined();
    expect(verifier.cachedCount).toBe(0);
  });

  it('T2: returns the claims synchronously after a successful verify', async () => {
    const { ring, verifier } = await setup();
    const c = claims();
    const token = await mintToken(ring, c);
    const verified = await verifier.verify(token, NOW);
    const cached = verifier.verifyCached(token, NOW + 10);
    expect(cached).not.toBeInstanceOf(Promise);
    expect(cached).toEqual(c);
    expect(cached).toBe(verified);
    expect(Object.isFrozen(cached)).toBe(true);
  });

  it('T2: with cacheSize 0 nothing is remembered, so every call is a miss', async () => {
    const { ring, verifier } = await setup(0);
    const token = await mintToken(ring, claims());
    await verifier.verify(token, NOW);
    expect(verifier.verifyCached(token, NOW)).toBeUndefined();
  });

  it('T2: bad arguments are a miss, not a throw', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    await verifier.verify(token, NOW);
    for (const t of [undefined, null, 42, {}, [token]]) expect(verifier.verifyCached(t, NOW)).toBeUndefined();
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, '1700000000' as unknown as number])
      expect(verifier.verifyCached(token, n)).toBeUndefined();
  });

  it('T1: a cached token throws AuthenticationError expired at exp exactly, and is valid a second before', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims({ exp: NOW + 100 }));
    await verifier.verify(token, NOW);
    expect(verifier.verifyCached(token, NOW + 99)).toBeDefined();
    expect(verifier.verifyCached(token, NOW + 99.9)).toBeDefined(); // seconds are floored, as verify does
    expect(reasonOfSync(() => verifier.verifyCached(token, NOW + 100))).toBe('expired');
    expect(reasonOfSync(() => verifier.verifyCached(token, NOW + 10 * HOUR))).toBe('expired');
  });

  it('T1: a cached token used at a time before its iat (beyond tolerance) is refused as malformed', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    await verifier.verify(token, NOW);
    expect(verifier.verifyCached(token, NOW - 5)).toBeDefined();
    expect(reasonOfSync(() => verifier.verifyCached(token, NOW - 6))).toBe('malformed');
  });

  it('T2: a rotation makes every cached token a miss until verify checks it again', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    await verifier.verify(token, NOW);
    await ring.rotate();
    expect(verifier.verifyCached(token, NOW)).toBeUndefined();
    // The old key still verifies after a rotation: verify re-admits the token.
    await verifier.verify(token, NOW);
    expect(verifier.verifyCached(token, NOW)).toBeDefined();
  });

  it('T2: a retired key: the cached token is a miss and verify refuses it (signature)', async () => {
    const { ring, verifier } = await setup();
    const oldKid = ring.exportPrivate().keys[0]!.kid!;
    const token = await mintToken(ring, claims());
    await verifier.verify(token, NOW);
    await ring.rotate();
    await verifier.verify(token, NOW); // cached again under the rotated ring
    ring.retire(oldKid);
    expect(verifier.verifyCached(token, NOW)).toBeUndefined();
    await expect(verifier.verify(token, NOW)).rejects.toMatchObject({ reason: 'signature' });
    expect(verifier.verifyCached(token, NOW)).toBeUndefined();
  });

  it('T2: a token that failed verify is never cached', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims({ exp: NOW + 10 }));
    await expect(verifier.verify(token, NOW + 10)).rejects.toMatchObject({ reason: 'expired' });
    expect(verifier.verifyCached(token, NOW)).toBeUndefined();
    const other = new TokenVerifier({ ring: await generateKeyRing(), issuer: ISS });
    const foreign = await mintToken(ring, claims());
    await expect(other.verify(foreign, NOW)).rejects.toMatchObject({ reason: 'signature' });
    expect(other.verifyCached(foreign, NOW)).toBeUndefined();
  });

  it('forgery: a cached token with any one character changed never yields claims', async () => {
    const { ring, verifier } = await setup();
    const token = await mintToken(ring, claims());
    await verifier.verify(token, NOW);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...alphabet.split('')), (i, c) => {
        fc.pre(token[i] !== c);
        const forged = token.slice(0, i) + c + token.slice(i + 1);
        expect(verifier.verifyCached(forged, NOW)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
    // Appended or dropped characters are different tokens too.
    expect(verifier.verifyCached(`${token}A`, NOW)).toBeUndefined();
    expect(verifier.verifyCached(token.slice(0, -1), NOW)).toBeUndefined();
    expect(verifier.verifyCached(token, NOW)).toBeDefined();
  });
});
