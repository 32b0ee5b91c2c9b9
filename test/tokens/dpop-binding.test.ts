/**
 * The key a token may be bound to: public keys of the proof algorithms only,
 * reduced to their RFC 7638 thumbprint.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { ValidationError } from '../../src/errors';
import { bindingThumbprint } from '../../src/tokens';

async function pair(alg: string) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { pub: await exportJWK(publicKey), priv: await exportJWK(privateKey) };
}

async function refusal(jwk: unknown): Promise<ValidationError> {
  const err = await bindingThumbprint(jwk, 'bindKey').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

describe('bindingThumbprint', () => {
  it.each(['EdDSA', 'ES256', 'ES384', 'RS256'])('a %s public key gives its RFC 7638 thumbprint', async (alg) => {
    const { pub } = await pair(alg);
    expect(await bindingThumbprint({ ...pub, kid: 'mine', use: 'sig' }, 'bindKey')).toBe(await calculateJwkThumbprint(pub));
  });

  it.each(['EdDSA', 'ES256', 'RS256'])('attack: a %s private key (with d) is refused, so it is never stored or echoed', async (alg) => {
    const { priv } = await pair(alg);
    const err = await refusal(priv);
    expect(err.issues[0]?.path).toEqual(['bindKey']);
    expect(JSON.stringify(err.issues)).not.toContain(priv.d as string);
  });

  it('attack: a symmetric key (kty oct) is refused', async () => {
    await refusal({ kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0' });
  });

  it('refuses other curves and key types: P-521, X25519, an RSA key of 1024 bits, an unknown kty', async () => {
    await refusal((await pair('ES512')).pub);
    await refusal({ kty: 'OKP', crv: 'X25519', x: (await pair('EdDSA')).pub.x });
    // jose will not make a short RSA key; node:crypto will.
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    await refusal(weak);
    await refusal({ kty: 'AKP', alg: 'ML-DSA-44', pub: 'AAAA' });
  });

  it('attack: a P-256 point off the curve is refused, not stored for a key no proof can use', async () => {
    const { pub } = await pair('ES256');
    const y = pub.y as string;
    await refusal({ ...pub, y: `${y.slice(0, 10)}${y[10] === 'A' ? 'B' : 'A'}${y.slice(11)}` });
  });

  it('attack: hostile values (a throwing getter, arrays, huge members, non-base64url text) are ValidationErrors', async () => {
    await refusal(
      Object.defineProperty({ kty: 'OKP', crv: 'Ed25519' }, 'x', {
        enumerable: true,
        get() {
          throw new Error('boom');
        },
      }),
    );
    for (const bad of [
      null,
      'jwk',
      [],
      42,
      { kty: 'RSA', n: 'A'.repeat(100_000), e: 'AQAB' },
      { kty: 'OKP', crv: 'Ed25519', x: '!'.repeat(43) },
    ]) {
      await refusal(bad);
    }
  });
});
