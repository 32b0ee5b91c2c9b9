/**
 * Strict JOSE (T1, T2): only the exact token shape this library writes verifies,
 * even when validly signed by the ring's own key. Each test is an attack by
 * someone holding the key (or a bug in another minting service) that jose alone
 * would accept.
 */
import { createHmac, createPrivateKey, sign as nodeSign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { newTokenId, generateKeyRing, importKeyRing, mintToken, type KeyAlgorithm, type KeyRing, TokenVerifier } from '../../src/tokens';
import { TOKEN_TYPES } from '../../src/tokens/claims';
import { isLowS, lowS } from '../../src/tokens/keys';
import { NOW_SEC as NOW } from '../support/clock';

const ISS = 'https://svc.test';
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64url');

/** Sign raw header and payload texts with the ring's signing key (low-S for ES256 unless asked). */
function signRaw(ring: KeyRing, headerText: string | Buffer, payloadText: string): string {
  const jwk = ring.exportPrivate().keys[0]!;
  const input = `${b64(headerText)}.${b64(payloadText)}`;
  if (jwk.kty === 'oct') return `${input}.${createHmac('sha256', Buffer.from(jwk.k!, 'base64url')).update(input).digest('base64url')}`;
  const { kid: _k, alg: _a, use: _u, ...material } = jwk;
  const key = createPrivateKey({ key: material as import('node:crypto').JsonWebKey, format: 'jwk' });
  const raw =
    jwk.kty === 'EC' ? nodeSign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : nodeSign(null, Buffer.from(input), key);
  const token = `${input}.${raw.toString('base64url')}`;
  return jwk.kty === 'EC' ? lowS(token) : token;
}

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** The (r, n - s) twin of an ES256 token: the same signature, respelled. */
function highS(token: string): string {
  const dot = token.lastIndexOf('.');
  const raw = Buffer.from(token.slice(dot + 1), 'base64url');
  const s = BigInt(`0x${raw.subarray(32).toString('hex')}`);
  const twin = Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex');
  return `${token.slice(0, dot + 1)}${Buffer.concat([raw.subarray(0, 32), twin]).toString('base64url')}`;
}

async function setup(alg: KeyAlgorithm = 'EdDSA') {
  const ring = await generateKeyRing({ alg });
  const jwk = ring.exportPrivate().keys[0]!;
  const verifier = new TokenVerifier({ ring, issuer: ISS, cacheSize: 0 });
  const payload = JSON.stringify({ iss: ISS, sub: 'alice', jti: newTokenId(), iat: NOW, exp: NOW + 3600 });
  const header = JSON.stringify({ typ: TOKEN_TYPES.pat, alg: jwk.alg, kid: jwk.kid });
  return { ring, verifier, jwk, payload, header };
}

async function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'accepted',
    (err: { code?: string; reason?: string }) => `${err.code}:${err.reason ?? ''}`,
  );
}

describe.each(['EdDSA', 'ES256', 'HS256'] as const)('strict JOSE with %s', (alg) => {
  it('control: the canonical forged text is accepted, so every refusal below is the shape', async () => {
    const { ring, verifier, header, payload } = await setup(alg);
    expect(await outcome(verifier.verify(signRaw(ring, header, payload), NOW))).toBe('accepted');
  });

  it('duplicate header member: typ twice is refused', async () => {
    const { ring, verifier, jwk, payload } = await setup(alg);
    const header = `{"typ":"svc-session+jwt","typ":"${TOKEN_TYPES.pat}","alg":"${jwk.alg}","kid":"${jwk.kid}"}`;
    expect(await outcome(verifier.verify(signRaw(ring, header, payload), NOW))).toBe('authentication:malformed');
  });

  it('duplicate header member: alg none then the real one is refused', async () => {
    const { ring, verifier, jwk, payload } = await setup(alg);
    const header = `{"typ":"${TOKEN_TYPES.pat}","alg":"none","alg":"${jwk.alg}","kid":"${jwk.kid}"}`;
    expect(await outcome(verifier.verify(signRaw(ring, header, payload), NOW))).toBe('authentication:malformed');
  });

  it('duplicate header member: kid twice is refused', async () => {
    const { ring, verifier, jwk, payload } = await setup(alg);
    const header = `{"typ":"${TOKEN_TYPES.pat}","alg":"${jwk.alg}","kid":"other","kid":"${jwk.kid}"}`;
    expect(await outcome(verifier.verify(signRaw(ring, header, payload), NOW))).toBe('authentication:malformed');
  });

  it('UTF-8 byte order mark before the header is refused', async () => {
    const { ring, verifier, header, payload } = await setup(alg);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(header)]);
    expect(await outcome(verifier.verify(signRaw(ring, bom, payload), NOW))).toBe('authentication:malformed');
  });

  it('header respelled (member order, spaces, escapes) is refused', async () => {
    const { ring, verifier, jwk, payload } = await setup(alg);
    for (const header of [
      JSON.stringify({ alg: jwk.alg, typ: TOKEN_TYPES.pat, kid: jwk.kid }),
      JSON.stringify({ typ: TOKEN_TYPES.pat, alg: jwk.alg, kid: jwk.kid }, null, 1),
      `{"typ":"svc-pat\\u002bjwt","alg":"${jwk.alg}","kid":"${jwk.kid}"}`,
    ]) {
      expect(await outcome(verifier.verify(signRaw(ring, header, payload), NOW))).toBe('authentication:malformed');
    }
  });

  it('duplicate payload claim: sub twice (the last one would win) is refused', async () => {
    const { ring, verifier, header } = await setup(alg);
    const payload = `{"iss":"${ISS}","sub":"mallory","sub":"alice","jti":"${newTokenId()}","iat":${NOW},"exp":${NOW + 3600}}`;
    expect(await outcome(verifier.verify(signRaw(ring, header, payload), NOW))).toBe('authentication:malformed');
  });

  it('payload respelled (claim order, BOM, spaces) is refused', async () => {
    const { ring, verifier, header } = await setup(alg);
    const jti = newTokenId();
    for (const payload of [
      JSON.stringify({ sub: 'alice', iss: ISS, jti, iat: NOW, exp: NOW + 3600 }),
      `\ufeff${JSON.stringify({ iss: ISS, sub: 'alice', jti, iat: NOW, exp: NOW + 3600 })}`,
      JSON.stringify({ iss: ISS, sub: 'alice', jti, iat: NOW, exp: NOW + 3600 }, null, 2),
    ]) {
      expect(await outcome(verifier.verify(signRaw(ring, header, payload), NOW))).toMatch(/^authentication:(malformed|signature)$/);
    }
  });
});

describe('ES256 signature malleability', () => {
  it('high-S twin: (r, n - s) of a valid token is refused; the minted low-S form is accepted', async () => {
    const { ring, verifier } = await setup('ES256');
    for (let i = 0; i < 20; i++) {
      const token = await mintToken(ring, { kind: 'pat', iss: ISS, sub: 'alice', jti: newTokenId(), iat: NOW, exp: NOW + 3600 });
      expect(isLowS(token.slice(token.lastIndexOf('.') + 1))).toBe(true);
      expect(await outcome(verifier.verify(token, NOW))).toBe('accepted');
      expect(await outcome(verifier.verify(highS(token), NOW))).toBe('authentication:signature');
    }
  });
});

describe('importKeyRing refuses keys with no entropy', () => {
  const octKey = (bytes: Buffer) => ({ keys: [{ kty: 'oct', kid: 'k1', alg: 'HS256', k: bytes.toString('base64url') }] });

  it('all-zero HS256 secret is refused with ValidationError', async () => {
    await expect(importKeyRing(octKey(Buffer.alloc(32)) as never)).rejects.toBeInstanceOf(ValidationError);
  });

  it('a repeated short pattern or word as HS256 secret is refused', async () => {
    await expect(importKeyRing(octKey(Buffer.from('ab'.repeat(32))) as never)).rejects.toMatchObject({ code: 'validation' });
    await expect(importKeyRing(octKey(Buffer.from('password'.repeat(4))) as never)).rejects.toMatchObject({ code: 'validation' });
  });

  it('an all-zero Ed25519 seed is refused even with its matching public key', async () => {
    const seed = Buffer.alloc(32);
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const jwk = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
    await expect(importKeyRing({ keys: [{ ...jwk, kid: 'zero' }] } as never)).rejects.toMatchObject({ code: 'validation' });
  });

  it('control: a random 32-byte secret imports', async () => {
    const ring = await importKeyRing(octKey(Buffer.from(crypto.getRandomValues(new Uint8Array(32)))) as never);
    expect(ring.exportPrivate().keys).toHaveLength(1);
  });
});
