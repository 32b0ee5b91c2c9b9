/**
 * The proof check of RFC 9449 §4.3 on its own (src/tokens/dpop): proofs signed by jose, as clients
 * sign them, with every accepted algorithm, and the attacks on the signature and the key: another
 * algorithm than the key's, a small RSA key, critical extensions, a forged or moved signature, claims
 * that are not an object. The thumbprint handed back is jose's RFC 7638 thumbprint of the key.
 */
import { createHash, generateKeyPairSync, randomUUID, sign as rawSign, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { checkProof } from '../../src/tokens';
import { newKey, type TestKey } from '../support/dpop';

const URL_ = 'https://api.svc.test/api/whoami';
const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2ln';
const NOW = Math.floor(Date.now() / 1000);
const ctx = { method: 'GET', url: URL_, token: TOKEN, jkt: null, nowSec: NOW, windowSec: 300, toleranceSec: 5 };
const ath = createHash('sha256').update(TOKEN).digest('base64url');

function sign(key: TestKey, header: Record<string, unknown> = {}, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ htm: 'GET', htu: URL_, jti: randomUUID(), ath, ...claims })
    .setProtectedHeader({ alg: key.alg === 'RS256' ? 'RS256' : key.alg, typ: 'dpop+jwt', jwk: key.publicJwk, ...header })
    .setIssuedAt(NOW)
    .sign(key.privateKey);
}

/** A compact JWS signed by node:crypto, for what jose will not sign (a 1024-bit RSA key, an unknown `crit`). */
function signRaw(header: Record<string, unknown>, privateKey: KeyObject, hash: string | null): string {
  const claims = { htm: 'GET', htu: URL_, jti: randomUUID(), ath, iat: NOW };
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${rawSign(hash, Buffer.from(input), privateKey).toString('base64url')}`;
}

const refusal = (f: () => unknown): unknown => {
  try {
    f();
  } catch (err) {
    return err;
  }
  return undefined;
};

describe('checkProof', () => {
  it.each(['EdDSA', 'ES256', 'ES384', 'RS256'] as const)(
    'a %s proof verifies, and its thumbprint is the key’s RFC 7638 thumbprint',
    async (alg) => {
      const key = await newKey(alg);
      const got = checkProof(await sign(key), ctx);
      expect(got.thumbprint).toBe(await calculateJwkThumbprint(key.publicJwk));
      expect(checkProof(await sign(key), { ...ctx, jkt: key.thumbprint }).thumbprint).toBe(key.thumbprint);
    },
  );

  it('a PS256 proof verifies', async () => {
    const { publicKey, privateKey } = await generateKeyPair('PS256', { extractable: true });
    const jwk = await exportJWK(publicKey);
    const proof = await new SignJWT({ htm: 'GET', htu: URL_, jti: randomUUID(), ath })
      .setProtectedHeader({ alg: 'PS256', typ: 'dpop+jwt', jwk })
      .setIssuedAt(NOW)
      .sign(privateKey);
    expect(checkProof(proof, ctx).thumbprint).toBe(await calculateJwkThumbprint(jwk));
  });

  it('attack: a header naming another algorithm than the key’s is refused (ES256 with a P-384 key, EdDSA with an EC key)', async () => {
    const p384 = await newKey('ES384');
    const es = await sign(p384);
    const [, body, sig] = es.split('.');
    const relabel = (alg: string, jwk: JWK): string =>
      `${Buffer.from(JSON.stringify({ alg, typ: 'dpop+jwt', jwk })).toString('base64url')}.${body}.${sig}`;
    expect(refusal(() => checkProof(relabel('ES256', p384.publicJwk), ctx))).toMatchObject({ reason: 'dpop' });
    expect(refusal(() => checkProof(relabel('EdDSA', p384.publicJwk), ctx))).toMatchObject({ reason: 'dpop' });
  });

  it('attack: an RSA key under 2048 bits is refused', () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const proof = signRaw({ alg: 'RS256', typ: 'dpop+jwt', jwk: publicKey.export({ format: 'jwk' }) }, privateKey, 'sha256');
    expect(refusal(() => checkProof(proof, ctx))).toMatchObject({ reason: 'dpop', message: expect.stringContaining('2048') });
  });

  it('attack: a header with critical extensions (crit) is refused', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' });
    expect(checkProof(signRaw({ alg: 'EdDSA', typ: 'dpop+jwt', jwk }, privateKey, null), ctx).jti).toBeTypeOf('string');
    const proof = signRaw({ alg: 'EdDSA', typ: 'dpop+jwt', jwk, crit: ['b64'], b64: false }, privateKey, null);
    expect(refusal(() => checkProof(proof, ctx))).toMatchObject({ reason: 'dpop', message: expect.stringContaining('critical') });
  });

  it('attack: a forged signature, one moved from another proof, and claims that are not an object are refused', async () => {
    const key = await newKey();
    const [h, b, s] = (await sign(key)).split('.') as [string, string, string];
    const other = (await sign(key)).split('.')[2] as string;
    const flipped = `${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const proof of [`${h}.${b}.${flipped}`, `${h}.${b}.${other}`, `${h}.${b}.`, `${h}.${b}`, `${h}.${b}.${s}.x`]) {
      expect(refusal(() => checkProof(proof, ctx))).toMatchObject({ reason: 'dpop' });
    }
    const array = await new SignJWT({} as never)
      .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk: key.publicJwk })
      .sign(key.privateKey);
    const [ah, ,] = array.split('.') as [string, string, string];
    const body = Buffer.from('[1,2]').toString('base64url');
    expect(refusal(() => checkProof(`${ah}.${body}.${s}`, ctx))).toMatchObject({ reason: 'dpop' });
  });

  it('a key used again is verified again (its key object is kept, never its verdict)', async () => {
    const key = await newKey();
    const good = await sign(key);
    checkProof(good, ctx);
    const [h, b] = good.split('.') as [string, string];
    expect(refusal(() => checkProof(`${h}.${b}.${'A'.repeat(86)}`, ctx))).toMatchObject({ reason: 'dpop' });
  });
});
