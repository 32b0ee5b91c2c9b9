/**
 * The server's secrets: made once (an Ed25519 signing key, a cookie key, a
 * form key), stored through {@link OAuthStorage.initSecrets} so that every
 * start and every server sharing the storage uses the same ones, and checked
 * when read back (a damaged value is refused, never half used).
 * @module
 */
import { generateKeyPairSync, randomBytes, createHash } from 'node:crypto';
import { UnavailableError } from '../../errors';
import type { OAuthSecrets } from './types';

/** @internal New secrets. */
export function freshSecrets(): OAuthSecrets {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  // RFC 7638 thumbprint of the public part: a stable, public kid.
  const kid = createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
    .digest('base64url');
  return {
    version: 1,
    signingKeys: [{ ...jwk, kid, alg: 'EdDSA', use: 'sig' }],
    cookieKeys: [randomBytes(32).toString('base64url')],
    formKey: randomBytes(32).toString('base64url'),
  };
}

const B64URL = /^[A-Za-z0-9_-]{43,}$/;

function isKey(k: unknown): boolean {
  const key = k as Record<string, unknown> | null;
  return typeof key === 'object' && key !== null && typeof key.d === 'string' && typeof key.kid === 'string';
}

/** @internal `value` as secrets, or `UnavailableError` when the stored value is not what this version writes. */
export function checkSecrets(value: unknown): OAuthSecrets {
  const v = value as Partial<OAuthSecrets> | null;
  const ok =
    typeof v === 'object' &&
    v !== null &&
    v.version === 1 &&
    Array.isArray(v.signingKeys) &&
    v.signingKeys.length > 0 &&
    v.signingKeys.every((k: unknown) => isKey(k)) &&
    Array.isArray(v.cookieKeys) &&
    v.cookieKeys.length > 0 &&
    v.cookieKeys.every((k) => typeof k === 'string' && B64URL.test(k)) &&
    typeof v.formKey === 'string' &&
    B64URL.test(v.formKey);
  if (!ok) throw new UnavailableError('the stored OAuth secrets are damaged or of another version; they were left untouched');
  return v as OAuthSecrets;
}
