/**
 * The key a token is bound to, as its creator names it: a public JWK of a
 * kind a DPoP proof may be signed with, reduced to its RFC 7638 thumbprint.
 * Only the thumbprint is stored; the key itself is sent with every proof.
 * @module
 */
import { calculateJwkThumbprint, importJWK } from 'jose';
import { ValidationError } from '../../errors';
import { isPlainObject } from '../../core/vocabulary';
import { hasPrivateMember, isMemberText, MIN_RSA_BITS } from './jwk';

/** The coordinate length (base64url characters) of each curve, and the algorithm its proofs use. */
const CURVES: Readonly<Record<string, { kty: string; chars: number; alg: string }>> = {
  Ed25519: { kty: 'OKP', chars: 43, alg: 'EdDSA' },
  'P-256': { kty: 'EC', chars: 43, alg: 'ES256' },
  'P-384': { kty: 'EC', chars: 64, alg: 'ES384' },
};

function refuse(path: string, message: string): ValidationError {
  return new ValidationError([{ path, message }]);
}

function member(key: Record<string, unknown>, name: string, path: string): string {
  const v = key[name];
  if (!isMemberText(v)) throw refuse(`${path}.${name}`, 'expected a base64url string');
  return v;
}

/** The members the thumbprint is over (RFC 7638 §3.2), checked, and the algorithm to import the key with. */
function publicMembers(raw: unknown, path: string): { members: Record<string, string>; alg: string } {
  if (!isPlainObject(raw)) throw refuse(path, 'expected a public JWK object');
  const key = raw;
  if (hasPrivateMember(key)) throw refuse(path, 'this is a private or symmetric key: give the public key only');
  if (key.kty === 'RSA') {
    const n = member(key, 'n', path);
    const e = member(key, 'e', path);
    // Each base64url character holds 6 bits; leading zero bytes would be a malformed modulus anyway.
    if (Math.floor((n.length * 6) / 8) * 8 < MIN_RSA_BITS) throw refuse(`${path}.n`, `an RSA key needs at least ${MIN_RSA_BITS} bits`);
    return { members: { e, kty: 'RSA', n }, alg: 'RS256' };
  }
  const crv = typeof key.crv === 'string' ? CURVES[key.crv] : undefined;
  if ((key.kty !== 'OKP' && key.kty !== 'EC') || crv === undefined || crv.kty !== key.kty) {
    throw refuse(path, 'expected an Ed25519 (OKP), P-256 or P-384 (EC) or RSA public key');
  }
  const x = member(key, 'x', path);
  if (x.length !== crv.chars) throw refuse(`${path}.x`, `not a ${String(key.crv)} coordinate`);
  if (key.kty === 'OKP') return { members: { crv: key.crv as string, kty: 'OKP', x }, alg: crv.alg };
  const y = member(key, 'y', path);
  if (y.length !== crv.chars) throw refuse(`${path}.y`, `not a ${String(key.crv)} coordinate`);
  return { members: { crv: key.crv as string, kty: 'EC', x, y }, alg: crv.alg };
}

/**
 * @internal The RFC 7638 SHA-256 thumbprint (base64url) of a public key a
 * token may be bound to: Ed25519, P-256, P-384 or RSA of at least 2048 bits.
 * A private or symmetric key, another curve, or a point that is not a key
 * is a `ValidationError` at `path`.
 *
 * @example
 * ```ts
 * const jkt = await bindingThumbprint({ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }, 'bindKey');
 * ```
 */
export async function bindingThumbprint(raw: unknown, path: string): Promise<string> {
  let checked: { members: Record<string, string>; alg: string };
  try {
    checked = publicMembers(raw, path);
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    // A hostile object (a throwing getter) is bad input, not a crash.
    throw refuse(path, 'the key could not be read');
  }
  try {
    // The key must be one a proof can verify with: an EC point off its curve is refused here, not at first use.
    await importJWK({ ...checked.members }, checked.alg);
  } catch {
    throw refuse(path, 'not a valid public key');
  }
  return calculateJwkThumbprint(checked.members, 'sha256');
}
