/**
 * ECDSA signature malleability (T2): for a valid P-256 signature `(r, s)`,
 * `(r, n - s)` verifies too, so one token would have two texts. Tokens are
 * minted with the low-S form (`s <= n/2`, as Bitcoin's BIP 62 and many JOSE
 * hardening guides require) and the high-S form is refused on verify.
 * @module
 */
import { base64url } from 'jose';

/** Order of the P-256 group. */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const HALF_N = N >> 1n;

function toBigInt(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function toBytes32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/**
 * Is this base64url ES256 (P1363, 64 bytes) signature in low-S form? A signature
 * of another length, or one that does not decode, is `false` (it cannot verify anyway).
 *
 * @example
 * ```ts
 * if (!isLowS(token.slice(token.lastIndexOf('.') + 1))) refuse();
 * ```
 */
export function isLowS(signature: string): boolean {
  let raw: Uint8Array;
  try {
    raw = base64url.decode(signature);
  } catch {
    return false;
  }
  if (raw.length !== 64) return false;
  return toBigInt(raw.subarray(32)) <= HALF_N;
}

/**
 * The token with its ES256 signature rewritten to the low-S form (unchanged when
 * it already is). Internal to minting.
 *
 * @example
 * ```ts
 * const token = lowS(await new SignJWT(claims).setProtectedHeader(h).sign(key));
 * ```
 */
export function lowS(token: string): string {
  const dot = token.lastIndexOf('.');
  const raw = base64url.decode(token.slice(dot + 1));
  if (raw.length !== 64) return token;
  const s = toBigInt(raw.subarray(32));
  if (s <= HALF_N) return token;
  const out = new Uint8Array(64);
  out.set(raw.subarray(0, 32), 0);
  out.set(toBytes32(N - s), 32);
  return `${token.slice(0, dot + 1)}${base64url.encode(out)}`;
}
