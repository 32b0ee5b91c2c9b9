/**
 * The signature of a DPoP proof, by the key its own header carries, checked
 * with node:crypto on a key object made once per header (issue 32 §3: a bound
 * request costs one signature verification, not a header decode, a key import,
 * a thumbprint over WebCrypto and a promise per step). A client signs every
 * proof with the same header, so what the header yields (checked, the key
 * object, the RFC 7638 thumbprint computed from the same canonical members the
 * key object is made from) is kept by the header's text: the key that verifies
 * is the key whose thumbprint is compared. Each
 * algorithm is tied to its key type and curve (an ES256 header needs a P-256
 * key), RSA keys have at least 2048 bits, and a header that names critical
 * extensions (`crit`) is refused, as no extension is understood here.
 * @module
 */
import { constants, createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { AuthenticationError } from '../../errors';
import { isMemberText, MIN_RSA_BITS } from './jwk';

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

/** Headers kept (one per client key in use). */
const MAX_KEYS = 1024;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

function fail(message: string): AuthenticationError {
  return new AuthenticationError('dpop', `invalid DPoP proof: ${message}`);
}

function member(jwk: Record<string, unknown>, name: string): string {
  const v = jwk[name];
  if (!isMemberText(v)) throw fail('the jwk is not a valid key');
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

function keyOf(members: Record<string, string>): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: members, format: 'jwk' });
  } catch {
    throw fail('the jwk is not a valid key');
  }
  if (members.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) {
    throw fail(`an RSA key needs at least ${MIN_RSA_BITS} bits`);
  }
  return key;
}

/** A proof header read and accepted once: what verifies its proofs. */
interface HeaderKey {
  readonly spec: AlgSpec;
  /** What `verify` takes: the key object, with the algorithm's options when it has any (made once). */
  readonly key: KeyObject | (AlgSpec['options'] & { key: KeyObject });
  readonly thumbprint: string;
}

/** The header a proof's header segment reads as, checked: its `alg` and public `jwk`. */
export interface ProofHeader {
  readonly header: Record<string, unknown>;
  readonly alg: string;
  readonly jwk: Record<string, unknown>;
}

/**
 * Accepted headers by their base64url text (a client signs every proof with the same header): the
 * header checks, the key object and the thumbprint are made once per header, never a verdict on a
 * signature. Bounded; the oldest goes first.
 */
const headers = new Map<string, HeaderKey>();
const MAX_HEADER_CHARS = 4096;

/** Read, check and keep a header not accepted before. */
function headerKey(head: string, read: () => ProofHeader): HeaderKey {
  const { header, alg, jwk } = read();
  const spec = SPECS[alg];
  if (spec === undefined) throw fail('algorithm not accepted');
  if (header.crit !== undefined) throw fail('the header names critical extensions');
  const members = canonical(jwk, spec);
  const key = keyOf(members);
  const found: HeaderKey = {
    spec,
    key: spec.hash === null ? key : { key, ...spec.options },
    thumbprint: createHash('sha256').update(JSON.stringify(members)).digest('base64url'),
  };
  if (head.length <= MAX_HEADER_CHARS) {
    if (headers.size >= MAX_KEYS) headers.delete(headers.keys().next().value as string);
    headers.set(head, found);
  }
  return found;
}

/**
 * @internal Verify the compact JWS `proof` with the key of its own header (`read` decodes and checks
 * the header, when this header was not accepted before): the payload object and the key's thumbprint,
 * or `AuthenticationError` `dpop`.
 *
 * @example
 * ```ts
 * const { payload, thumbprint } = verifyProofSignature(proof, () => checkHeader(proof));
 * ```
 */
export function verifyProofSignature(proof: string, read: () => ProofHeader): { payload: Record<string, unknown>; thumbprint: string } {
  const first = proof.indexOf('.');
  const last = proof.lastIndexOf('.');
  if (first <= 0 || last === first || proof.indexOf('.', first + 1) !== last) throw fail('not a JWT');
  const head = proof.slice(0, first);
  const body = proof.slice(first + 1, last);
  const sig = proof.slice(last + 1);
  // A header accepted before is this very text; any other is read whole (by `read`) before its key is made.
  const known = headers.get(head);
  if ((known === undefined && !BASE64URL.test(head)) || !BASE64URL.test(body) || !BASE64URL.test(sig)) throw fail('not a JWT');
  const { spec, key, thumbprint } = known ?? headerKey(head, read);
  let ok: boolean;
  try {
    // The signing input is ASCII (checked above): one latin1 copy of the proof, viewed up to the last dot.
    ok = verify(spec.hash, Buffer.from(proof, 'latin1').subarray(0, last), key, Buffer.from(sig, 'base64url'));
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
  // A bound token comes back with every request: its hash is kept (bounded), not made again.
  let hash = hashes.get(token);
  if (hash === undefined) {
    hash = createHash('sha256').update(token).digest('base64url');
    if (hashes.size >= MAX_HASHES) hashes.clear();
    hashes.set(token, hash);
  }
  return hash;
}

const MAX_HASHES = 4096;
const hashes = new Map<string, string>();
