/**
 * The signature of a DPoP proof, by the key its own header carries, checked
 * with node:crypto on a key object made once per key (issue 32 §3: a bound
 * request costs one signature verification, not a key import, a thumbprint
 * over WebCrypto and a promise per step). A client signs every proof with the
 * same key, so the key object is kept by the key's RFC 7638 thumbprint, which
 * is computed from the same canonical members the key object is made from:
 * the key that verifies is the key whose thumbprint is compared. Each
 * algorithm is tied to its key type and curve (an ES256 header needs a P-256
 * key), RSA keys have at least 2048 bits, and a header that names critical
 * extensions (`crit`) is refused, as no extension is understood here.
 * @module
 */
import { constants, createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { AuthenticationError } from '../../errors';

/** What verifies one algorithm: the key type and curve it needs, and node:crypto's parameters. */
interface AlgSpec {
  readonly kty: 'OKP' | 'EC' | 'RSA';
  readonly crv?: string;
  readonly hash: string | null;
  readonly options: { dsaEncoding?: 'ieee-p1363'; padding?: number; saltLength?: number };
}

const SPECS: Readonly<Record<string, AlgSpec>> = {
  EdDSA: { kty: 'OKP', crv: 'Ed25519', hash: null, options: {} },
  ES256: { kty: 'EC', crv: 'P-256', hash: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { kty: 'EC', crv: 'P-384', hash: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  PS256: { kty: 'RSA', hash: 'sha256', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  RS256: { kty: 'RSA', hash: 'sha256', options: { padding: constants.RSA_PKCS1_PADDING } },
};

const MIN_RSA_BITS = 2048;
const MAX_MEMBER_CHARS = 2048;
/** Key objects kept, by thumbprint: one per client key in use; the oldest goes first. */
const MAX_KEYS = 1024;
const keys = new Map<string, KeyObject>();
const BASE64URL = /^[A-Za-z0-9_-]*$/;

function fail(message: string): AuthenticationError {
  return new AuthenticationError('dpop', `invalid DPoP proof: ${message}`);
}

function member(jwk: Record<string, unknown>, name: string): string {
  const v = jwk[name];
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_MEMBER_CHARS || !BASE64URL.test(v)) {
    throw fail('the jwk is not a valid key');
  }
  return v;
}

/** The RFC 7638 required members, in their order (the thumbprint's input), for the key `alg` needs. */
function canonical(jwk: Record<string, unknown>, spec: AlgSpec): Record<string, string> {
  if (jwk.kty !== spec.kty) throw fail('the jwk is not a key of the algorithm');
  if (spec.kty === 'RSA') return { e: member(jwk, 'e'), kty: 'RSA', n: member(jwk, 'n') };
  if (jwk.crv !== spec.crv) throw fail('the jwk is not a key of the algorithm');
  if (spec.kty === 'OKP') return { crv: spec.crv as string, kty: 'OKP', x: member(jwk, 'x') };
  return { crv: spec.crv as string, kty: 'EC', x: member(jwk, 'x'), y: member(jwk, 'y') };
}

function keyOf(thumbprint: string, members: Record<string, string>): KeyObject {
  let key = keys.get(thumbprint);
  if (key !== undefined) return key;
  try {
    key = createPublicKey({ key: members, format: 'jwk' });
  } catch {
    throw fail('the jwk is not a valid key');
  }
  if (members.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) {
    throw fail(`an RSA key needs at least ${MIN_RSA_BITS} bits`);
  }
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value as string);
  keys.set(thumbprint, key);
  return key;
}

/**
 * @internal Verify the compact JWS `proof` (its header already read: `alg` of the allow-list, `jwk`
 * public) with the key of `jwk`: the payload object and the key's thumbprint, or `AuthenticationError` `dpop`.
 *
 * @example
 * ```ts
 * const { payload, thumbprint } = verifyProofSignature(proof, header.alg, header.jwk);
 * ```
 */
export function verifyProofSignature(
  proof: string,
  alg: string,
  jwk: Record<string, unknown>,
  header: Record<string, unknown>,
): { payload: Record<string, unknown>; thumbprint: string } {
  const spec = SPECS[alg];
  if (spec === undefined) throw fail('algorithm not accepted');
  if (header.crit !== undefined) throw fail('the header names critical extensions');
  const parts = proof.split('.');
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) throw fail('not a JWT');
  const [head, body, sig] = parts as [string, string, string];
  const members = canonical(jwk, spec);
  const thumbprint = createHash('sha256').update(JSON.stringify(members)).digest('base64url');
  const key = keyOf(thumbprint, members);
  let ok: boolean;
  try {
    ok = verify(spec.hash, Buffer.from(`${head}.${body}`), { key, ...spec.options }, Buffer.from(sig, 'base64url'));
  } catch {
    ok = false;
  }
  if (!ok) throw fail('the signature does not verify');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw fail('the claims are not JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw fail('the claims are not a JSON object');
  return { payload: payload as Record<string, unknown>, thumbprint };
}

/**
 * @internal base64url(SHA-256(ASCII token)), the `ath` of RFC 9449 §4.2.
 *
 * @example
 * ```ts
 * tokenHash(token) === payload.ath;
 * ```
 */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
