import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import { newTokenId, generateKeyRing, mintToken, type TokenClaims, TokenVerifier } from '../../src/tokens';
import { SignatureCache } from '../../src/tokens/signature-cache';
import { NOW_SEC as NOW } from '../support/clock';

const ISS = 'https://svc.test';

function claims(over: Partial<TokenClaims> = {}): TokenClaims {
  return { kind: 'pat', iss: ISS, sub: 'u1', jti: newTokenId(), iat: NOW, exp: NOW + 3600, ...over };
}

async function reasonOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (err) {
    expect(err).toBeInstanceOf(AuthenticationError);
    return (err as AuthenticationError).reason;
  }
}

let verifySpy: MockInstance;
beforeEach(() => {
  verifySpy = vi.spyOn(crypto.subtle, 'verify');
});
afterEach(() => {
  verifySpy.mockRestore();
});

describe('verified-signature cache', () => {
  it('T2: a cache hit skips the signature check and returns the same claims', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS });
    const token = await mintToken(ring, claims());
    verifySpy.mockClear();
    const first = await verifier.verify(token, NOW);
    expect(verifySpy).toHaveBeenCalledTimes(1);
    const second = await verifier.verify(token, NOW + 10);
    expect(verifySpy).toHaveBeenCalledTimes(1);
    expect(second).toBe(first);
    expect(verifier.cachedCount).toBe(1);
  });

  it('T2: an expired cached token fails at once', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS });
    const token = await mintToken(ring, claims({ exp: NOW + 60 }));
    verifySpy.mockClear();
    await verifier.verify(token, NOW);
    expect(await reasonOf(verifier.verify(token, NOW + 60))).toBe('expired');
    expect(verifySpy).toHaveBeenCalledTimes(1);
  });

  it('T2: a cached token answers like an uncached one for iat in the future', async () => {
    const ring = await generateKeyRing();
    const cached = new TokenVerifier({ ring, issuer: ISS });
    const plain = new TokenVerifier({ ring, issuer: ISS, cacheSize: 0 });
    const token = await mintToken(ring, claims({ iat: NOW, exp: NOW + 600 }));
    await cached.verify(token, NOW);
    expect(await reasonOf(cached.verify(token, NOW - 6))).toBe(await reasonOf(plain.verify(token, NOW - 6)));
  });

  it('T2: a rotation empties the cache', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS });
    const token = await mintToken(ring, claims());
    await verifier.verify(token, NOW);
    await ring.rotate();
    verifySpy.mockClear();
    expect(await reasonOf(verifier.verify(token, NOW))).toBe('accepted');
    expect(verifySpy).toHaveBeenCalledTimes(1);
  });

  it('T2: retiring a key empties the cache, so its cached tokens stop verifying', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS });
    const oldKid = ring.exportPrivate().keys[0]!.kid!;
    const token = await mintToken(ring, claims());
    await ring.rotate();
    await verifier.verify(token, NOW);
    expect(verifier.cachedCount).toBe(1);
    ring.retire(oldKid);
    expect(await reasonOf(verifier.verify(token, NOW))).toBe('signature');
    expect(verifier.cachedCount).toBe(0);
  });

  it('T2: a key retired while a verify is in flight does not let the token through or into the cache', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS });
    const oldKid = ring.exportPrivate().keys[0]!.kid!;
    const token = await mintToken(ring, claims());
    await ring.rotate();
    const pending = verifier.verify(token, NOW);
    ring.retire(oldKid);
    expect(await reasonOf(pending)).toBe('signature');
    expect(verifier.cachedCount).toBe(0);
  });

  it('T2: a token with one character changed is not served from the cache', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS });
    const token = await mintToken(ring, claims());
    verifySpy.mockClear();
    await verifier.verify(token, NOW);
    const i = token.indexOf('.') + 5;
    const changed = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    expect(await reasonOf(verifier.verify(changed, NOW))).toBe('signature');
    expect(verifySpy).toHaveBeenCalledTimes(2);
  });

  it('T2: failures are never cached', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: 'https://other.test' });
    const token = await mintToken(ring, claims());
    expect(await reasonOf(verifier.verify(token, NOW))).toBe('signature');
    expect(verifier.cachedCount).toBe(0);
  });

  it('T2: cacheSize 0 disables the cache', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS, cacheSize: 0 });
    const token = await mintToken(ring, claims());
    verifySpy.mockClear();
    await verifier.verify(token, NOW);
    await verifier.verify(token, NOW);
    expect(verifySpy).toHaveBeenCalledTimes(2);
    expect(verifier.cachedCount).toBe(0);
  });

  it('T2: the cache is bounded by cacheSize', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS, cacheSize: 3 });
    for (let i = 0; i < 10; i++) await verifier.verify(await mintToken(ring, claims()), NOW);
    expect(verifier.cachedCount).toBe(3);
  });
});

describe('SignatureCache', () => {
  const c = (jti: string): TokenClaims => ({ kind: 'pat', iss: ISS, sub: 'u', jti, iat: 1, exp: 2 });

  it('T2: evicts the oldest entry when full', () => {
    const cache = new SignatureCache(2);
    cache.set('a', c('a'));
    cache.set('b', c('b'));
    cache.set('c', c('c'));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.jti).toBe('b');
    expect(cache.get('c')?.jti).toBe('c');
    expect(cache.size).toBe(2);
  });

  it('T2: clear forgets every entry', () => {
    const cache = new SignatureCache(5);
    cache.set('a', c('a'));
    cache.set('b', c('b'));
    cache.clear();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("tail collision: a token that shares the cached one's signature tail is a miss, never its claims", () => {
    const cache = new SignatureCache(5);
    const sig = 'S'.repeat(86);
    const real = `eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.${sig}`;
    const edited = `eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJtYWxsb3J5In0.${sig}`;
    cache.set(real, c('real'));
    expect(cache.get(edited)).toBeUndefined();
    expect(cache.get(real)?.jti).toBe('real');
    // The later one takes the slot; the earlier one is then verified again, not confused with it.
    cache.set(edited, c('edited'));
    expect(cache.get(real)).toBeUndefined();
    expect(cache.get(edited)?.jti).toBe('edited');
  });

  it('T2: 200 000 distinct signatures are 200 000 entries (the numeric key does not collide at this size)', () => {
    const cache = new SignatureCache(200_000);
    const tokens: string[] = [];
    for (let i = 0; i < 200_000; i++) tokens.push(`h.p.${createHash('sha256').update(String(i)).digest('base64url')}`);
    for (const t of tokens) cache.set(t, c(t));
    expect(cache.size).toBe(200_000);
    for (let i = 0; i < tokens.length; i += 997) expect(cache.get(tokens[i] as string)?.jti).toBe(tokens[i]);
  });

  it('short tokens (under the key length) are keyed by all their characters', () => {
    const cache = new SignatureCache(5);
    cache.set('a.b.c', c('one'));
    cache.set('a.b.d', c('two'));
    expect(cache.get('a.b.c')?.jti).toBe('one');
    expect(cache.get('a.b.d')?.jti).toBe('two');
    expect(cache.get('')).toBeUndefined();
  });
});

describe('verified-signature cache: an edited payload under a cached signature (attack)', () => {
  it('a token whose payload is edited but whose signature is that of a cached token is verified in full and refused', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS });
    const token = await mintToken(ring, claims({ sub: 'alice' }));
    await verifier.verify(token, NOW);
    const [h, , sig] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify(claims({ sub: 'admin' }))).toString('base64url')}.${sig}`;
    verifySpy.mockClear();
    expect(verifier.verifyCached(forged, NOW)).toBeUndefined();
    expect(await reasonOf(verifier.verify(forged, NOW))).not.toBe('accepted');
    expect(verifySpy).toHaveBeenCalledTimes(1);
    expect((await verifier.verify(token, NOW)).sub).toBe('alice');
  });
});

describe('verified-signature cache bounds (issue 13: floods)', () => {
  it('hostile flood: thousands of distinct bogus and badly signed tokens never enter the cache', async () => {
    const ring = await generateKeyRing();
    const other = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS, cacheSize: 100 });
    const good = await mintToken(ring, claims());
    const [head, body] = good.split('.') as [string, string];
    for (let i = 0; i < 2000; i++) {
      // Valid-looking: the real header and body with a distinct wrong signature.
      const sig = Buffer.from(`forged-${i}`.padEnd(64, 'x')).toString('base64url');
      expect(await reasonOf(verifier.verify(`${head}.${body}.${sig}`, NOW))).not.toBe('accepted');
      expect(await reasonOf(verifier.verify(`bogus-${i}`, NOW))).toBe('malformed');
    }
    for (let i = 0; i < 50; i++) {
      expect(await reasonOf(verifier.verify(await mintToken(other, claims()), NOW))).toBe('signature');
    }
    expect(verifier.cachedCount).toBe(0);
  });

  it('a flood of distinct valid tokens holds at most cacheSize entries', async () => {
    const ring = await generateKeyRing();
    const verifier = new TokenVerifier({ ring, issuer: ISS, cacheSize: 40 });
    for (let i = 0; i < 300; i++) {
      await verifier.verify(await mintToken(ring, claims()), NOW);
      expect(verifier.cachedCount).toBeLessThanOrEqual(40);
    }
    expect(verifier.cachedCount).toBe(40);
    const direct = new SignatureCache(10);
    for (let i = 0; i < 5000; i++) direct.set(`t${i}`, claims());
    expect(direct.size).toBe(10);
  });
});
