/**
 * One key of a key ring: its private JWK (for export), its public JWK (for the
 * JWKS), and CryptoKeys imported once so that signing and verifying never import.
 * Also the strict schema that private JWKs from outside must pass.
 * @module
 */
import { base64url, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { z } from 'zod';
import { ValidationError, type IssueInput } from '../../errors';
import type { KeyAlgorithm } from '../types';

/**
 * A key ready to sign and verify. Internal to the tokens layer.
 * @example
 * ```ts
 * const { kid, alg, signKey }: RingKey = await newRingKey('EdDSA');
 * ```
 */
export interface RingKey {
  readonly kid: string;
  readonly alg: KeyAlgorithm;
  /** Frozen; never handed out without copying. */
  readonly privateJwk: Readonly<JWK>;
  /** `null` for HS256: a shared secret has no public half. */
  readonly publicJwk: Readonly<JWK> | null;
  readonly signKey: CryptoKey;
  readonly verifyKey: CryptoKey;
}

/**
 * A `kid` appears in every token header, so it is kept short and inert (no `/`, `.`, spaces).
 * @example
 * ```ts
 * KID_PATTERN.test('../../etc/passwd'); // false
 * ```
 */
export const KID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Least number of distinct byte values in a secret or private scalar. 32 random
 * bytes hold about 30; fewer than 8 means a constant, a short repeated pattern or
 * a word (`00 00 ...`, `passwordpassword...`): no entropy worth the name.
 */
const MIN_DISTINCT_BYTES = 8;

/** Least HS256 secret length in bytes (T2). */
const MIN_HMAC_BYTES = 32;
const MAX_HMAC_BYTES = 512;

const b64u = (exactLen?: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url without padding')
    .refine((s) => isCanonicalB64u(s), 'must be canonical base64url')
    .refine((s) => exactLen === undefined || s.length === exactLen, `must be ${exactLen ?? 0} base64url characters`);

const common = {
  kid: z.string().regex(KID_PATTERN, 'kid must match ^[A-Za-z0-9_-]{1,64}$'),
  use: z.literal('sig').optional(),
  key_ops: z
    .array(z.enum(['sign', 'verify']))
    .max(2)
    .optional(),
  ext: z.boolean().optional(),
};

const secret = (schema: z.ZodString) =>
  schema.refine(
    (s) => hasEntropy(s),
    `has too little entropy (fewer than ${MIN_DISTINCT_BYTES} distinct byte values); generate it from random bytes`,
  );

// Ed25519 and P-256 coordinates and scalars are 32 bytes: 43 base64url characters.
const okpSchema = z.strictObject({
  ...common,
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  alg: z.literal('EdDSA').optional(),
  x: b64u(43),
  d: secret(b64u(43)),
});
const ecSchema = z.strictObject({
  ...common,
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  alg: z.literal('ES256').optional(),
  x: b64u(43),
  y: b64u(43),
  d: secret(b64u(43)),
});
const octSchema = z.strictObject({
  ...common,
  kty: z.literal('oct'),
  alg: z.literal('HS256').optional(),
  k: secret(
    b64u()
      .refine((s) => byteLength(s) >= MIN_HMAC_BYTES, `HS256 secret must be at least ${MIN_HMAC_BYTES} bytes`)
      .refine((s) => byteLength(s) <= MAX_HMAC_BYTES, `HS256 secret must be at most ${MAX_HMAC_BYTES} bytes`),
  ),
});
const privateJwkSchema = z.discriminatedUnion('kty', [okpSchema, ecSchema, octSchema]);

/**
 * At most this many keys in a ring: rotation keeps a few, not hundreds.
 * @example
 * ```ts
 * if (keys.length >= MAX_RING_KEYS) throw new ValidationError('retire old keys first');
 * ```
 */
export const MAX_RING_KEYS = 32;

/**
 * Strict schema of `importKeyRing` input. Internal: zod types never leave the tokens layer.
 * @example
 * ```ts
 * const parsed = privateJwksSchema.safeParse(input);
 * if (!parsed.success) throw toValidationError(parsed.error, 'privateJwks');
 * ```
 */
export const privateJwksSchema = z.strictObject({
  keys: z.array(privateJwkSchema).min(1, 'a key ring needs at least one key').max(MAX_RING_KEYS, `at most ${MAX_RING_KEYS} keys`),
});

/**
 * One private JWK that passed {@link privateJwksSchema}.
 * @example
 * ```ts
 * const jwk: ParsedJwk = privateJwksSchema.parse(input).keys[0]!;
 * ```
 */
export type ParsedJwk = z.infer<typeof privateJwkSchema>;

/**
 * zod issues -> our ValidationError (zod types never leave this module).
 * @example
 * ```ts
 * throw toValidationError(result.error, 'privateJwks'); // paths like privateJwks.keys[0].kid
 * ```
 */
export function toValidationError(error: z.ZodError, prefix: string): ValidationError {
  const issues: IssueInput[] = error.issues.map((i) => ({ path: prefix + formatPath(i.path), message: i.message }));
  return new ValidationError(issues);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
}

function isCanonicalB64u(s: string): boolean {
  try {
    return base64url.encode(base64url.decode(s)) === s;
  } catch {
    return false;
  }
}

function hasEntropy(s: string): boolean {
  let bytes: Uint8Array;
  try {
    bytes = base64url.decode(s);
  } catch {
    return false; // reported by the base64url check
  }
  return new Set(bytes).size >= MIN_DISTINCT_BYTES;
}

function byteLength(s: string): number {
  return Math.floor((s.length * 3) / 4);
}

function algOf(jwk: ParsedJwk): KeyAlgorithm {
  if (jwk.kty === 'OKP') return 'EdDSA';
  if (jwk.kty === 'EC') return 'ES256';
  return 'HS256';
}

const SUBTLE_SIGN: Record<KeyAlgorithm, Parameters<typeof crypto.subtle.sign>[0]> = {
  EdDSA: { name: 'Ed25519' },
  ES256: { name: 'ECDSA', hash: 'SHA-256' },
  HS256: { name: 'HMAC' },
};

/**
 * Import one validated private JWK: CryptoKeys once, public half, and a sign/verify
 * probe so that a JWK whose `d` does not belong to its `x` is refused at import,
 * not discovered when every token fails.
 * @example
 * ```ts
 * const key = await loadRingKey(parsed.keys[0]!, 'privateJwks.keys[0]');
 * ```
 */
export async function loadRingKey(jwk: ParsedJwk, path: string): Promise<RingKey> {
  const alg = algOf(jwk);
  let signKey: CryptoKey;
  let verifyKey: CryptoKey;
  let privateJwk: JWK;
  let publicJwk: JWK | null;
  try {
    if (jwk.kty === 'oct') {
      privateJwk = { kty: 'oct', k: jwk.k, kid: jwk.kid, alg, use: 'sig' };
      publicJwk = null;
      signKey = await crypto.subtle.importKey('raw', base64url.decode(jwk.k), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
      verifyKey = signKey;
    } else {
      const pub: JWK = jwk.kty === 'OKP' ? { kty: 'OKP', crv: jwk.crv, x: jwk.x } : { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y };
      publicJwk = { ...pub, kid: jwk.kid, alg, use: 'sig' };
      privateJwk = { ...pub, d: jwk.d, kid: jwk.kid, alg, use: 'sig' };
      signKey = (await importJWK({ ...pub, d: jwk.d }, alg, { extractable: false })) as CryptoKey;
      verifyKey = (await importJWK(pub, alg, { extractable: true })) as CryptoKey;
    }
  } catch (cause) {
    throw new ValidationError([{ path, message: `not a usable ${alg} key` }], { cause });
  }
  const probe = new TextEncoder().encode('svc-auth key probe');
  const params = SUBTLE_SIGN[alg];
  let ok: boolean;
  try {
    const sig = await crypto.subtle.sign(params, signKey, probe);
    ok = await crypto.subtle.verify(params, verifyKey, sig, probe);
  } catch {
    ok = false;
  }
  if (!ok) throw new ValidationError([{ path, message: 'private and public parts do not belong together' }]);
  return Object.freeze({
    kid: jwk.kid,
    alg,
    privateJwk: Object.freeze(privateJwk),
    publicJwk: publicJwk === null ? null : Object.freeze(publicJwk),
    signKey,
    verifyKey,
  });
}

/**
 * A fresh key of `alg`, its `kid` the RFC 7638 thumbprint of its public half (of the secret for HS256).
 * @example
 * ```ts
 * const key = await newRingKey('ES256');
 * ```
 */
export async function newRingKey(alg: KeyAlgorithm): Promise<RingKey> {
  let jwk: JWK;
  if (alg === 'HS256') {
    jwk = { kty: 'oct', k: base64url.encode(crypto.getRandomValues(new Uint8Array(MIN_HMAC_BYTES))) };
  } else {
    const pair = await generateKeyPair(alg, { extractable: true });
    jwk = await exportJWK(pair.privateKey);
  }
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  const parsed = privateJwkSchema.parse({ ...jwk, kid, alg });
  return loadRingKey(parsed, 'generated');
}
