/**
 * What the key of a token's binding and the key of a proof are both held to:
 * a public JWK (no private member of any key type), members of bounded
 * base64url text, RSA of at least 2048 bits. The binding refuses with a
 * `ValidationError` at its input's path, a proof with an `AuthenticationError`:
 * one set of rules, each side's own error.
 * @module
 */

/** RFC 7517's private members of every key type: a public key holds none of them. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** The smallest RSA modulus accepted, in bits. */
export const MIN_RSA_BITS = 2048;

/** The longest member text: an RSA-8192 modulus is 1366 characters. */
const MAX_MEMBER_CHARS = 2048;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * @internal Does `jwk` hold a private member (of any key type)?
 *
 * @example
 * ```ts
 * hasPrivateMember({ kty: 'OKP', crv: 'Ed25519', x: '…', d: '…' }); // true
 * ```
 */
export function hasPrivateMember(jwk: Record<string, unknown>): boolean {
  return PRIVATE_MEMBERS.some((m) => Object.hasOwn(jwk, m));
}

/**
 * @internal Is `value` a key member's text: base64url, 1 to 2048 characters?
 *
 * @example
 * ```ts
 * isMemberText(jwk.x); // true for a key's coordinate
 * ```
 */
export function isMemberText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_MEMBER_CHARS && BASE64URL.test(value);
}
