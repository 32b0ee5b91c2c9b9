/**
 * The JWT vocabulary of svc-auth (T1): one `typ` per kind, the five claims and
 * their strict shape, shared by minting (misuse check) and verifying.
 * @module
 */
import { base64url } from 'jose';
import type { TokenKind } from './types';

/**
 * The JWT `typ` header of each kind of token (T1). Verification accepts exactly
 * these strings, so a session can never be passed off as a PAT or the reverse.
 *
 * @example
 * ```ts
 * import { TOKEN_TYPES } from 'svc-auth';
 * TOKEN_TYPES.pat; // 'svc-pat+jwt'
 * ```
 */
export const TOKEN_TYPES: Readonly<Record<TokenKind, string>> = Object.freeze({
  pat: 'svc-pat+jwt',
  session: 'svc-session+jwt',
  component: 'svc-component+jwt',
});

/**
 * `typ` -> kind, built once for verification. Internal.
 * @example
 * ```ts
 * KIND_BY_TYPE.get('svc-session+jwt'); // 'session'
 * ```
 */
export const KIND_BY_TYPE: ReadonlyMap<string, TokenKind> = new Map(
  (Object.entries(TOKEN_TYPES) as [TokenKind, string][]).map(([kind, typ]) => [typ, kind]),
);

/** The claim names, in the order they are written. A token with any other claim is malformed. */
const CLAIM_NAMES = ['iss', 'sub', 'jti', 'iat', 'exp'] as const;

/** Longest `iss`, `sub` or `jti` accepted; tokens stay small (8 KiB cap overall). */
const MAX_CLAIM_CHARS = 1024;

/**
 * The raw claim set, shape-checked, before the kind is known. Internal.
 * @example
 * ```ts
 * const c: ClaimSet = { iss: 'https://svc.example', sub: 'u1', jti: newTokenId(), iat: 1, exp: 2 };
 * ```
 */
export interface ClaimSet {
  iss: string;
  sub: string;
  jti: string;
  iat: number;
  exp: number;
}

/**
 * Strict shape check: exactly the five claims, strings non-empty and bounded, times
 * non-negative safe integers with `exp > iat`. Returns the first problem as a path
 * and message, or the claims. Does not judge lifetimes or the clock. Internal.
 * @example
 * ```ts
 * const r = checkClaimSet(JSON.parse(payloadText));
 * if (!r.ok) throw new ValidationError([{ path: r.path, message: r.message }]);
 * ```
 */
export function checkClaimSet(value: unknown): { ok: true; claims: ClaimSet } | { ok: false; path: string; message: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, path: '', message: 'claims must be an object' };
  const rec = value as Record<string, unknown>;
  for (const name of Object.keys(rec)) {
    if (!(CLAIM_NAMES as readonly string[]).includes(name)) return { ok: false, path: name, message: 'unexpected claim' };
  }
  for (const name of ['iss', 'sub', 'jti'] as const) {
    const v = rec[name];
    if (typeof v !== 'string' || v.length === 0 || v.length > MAX_CLAIM_CHARS) {
      return { ok: false, path: name, message: `must be a non-empty string of at most ${MAX_CLAIM_CHARS} characters` };
    }
  }
  for (const name of ['iat', 'exp'] as const) {
    const v = rec[name];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      return { ok: false, path: name, message: 'must be whole seconds since the epoch' };
  }
  const claims = rec as unknown as ClaimSet;
  if (claims.exp <= claims.iat) return { ok: false, path: 'exp', message: 'must be later than iat' };
  return { ok: true, claims };
}

/**
 * A new random token id: 128 random bits, base64url (22 characters). Used as the
 * `jti` of every token and as the id of PAT and component records.
 *
 * @example
 * ```ts
 * import { newTokenId } from 'svc-auth';
 * const id = newTokenId(); // e.g. 'q3H0x2y6b1m5d8VJ0yQe1A'
 * ```
 */
export function newTokenId(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * The base64url header segment this library writes for a token (T1): `typ`, `alg`,
 * `kid` in that order, no spaces. Verify compares the received segment with it
 * byte for byte. Internal.
 * @example
 * ```ts
 * canonicalHeader({ typ: 'svc-pat+jwt', alg: 'EdDSA', kid }) === token.split('.')[0];
 * ```
 */
export function canonicalHeader(h: { typ: string; alg: string; kid: string }): string {
  return base64url.encode(JSON.stringify({ typ: h.typ, alg: h.alg, kid: h.kid }));
}

/**
 * The base64url payload segment this library writes: the five claims in the
 * order `iss`, `sub`, `jti`, `iat`, `exp`. Internal.
 * @example
 * ```ts
 * canonicalPayload(claims) === token.split('.')[1];
 * ```
 */
export function canonicalPayload(c: ClaimSet): string {
  return base64url.encode(JSON.stringify({ iss: c.iss, sub: c.sub, jti: c.jti, iat: c.iat, exp: c.exp }));
}
