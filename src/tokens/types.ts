/**
 * Contract of the tokens layer (4): key rings, minting and verifying the three
 * kinds of JWT. Scopes never travel in a JWT; they live in the token record.
 * @module
 */

/**
 * A JSON Web Key (RFC 7517) as a key ring exports it. Declared here rather
 * than taken from jose, which is ESM-only: the CommonJS type declarations
 * (`.d.cts`) may not import types from an ES module. jose's `JWK` and this
 * type are assignable to each other.
 *
 * @example
 * ```ts
 * const { keys }: { keys: JWK[] } = ring.publicJwks(); // keys[0].kid, keys[0].kty, ...
 * ```
 */
export interface JWK {
  kty?: string;
  kid?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  k?: string;
  n?: string;
  e?: string;
  ext?: boolean;
  [param: string]: unknown;
}

/** The three kinds of credential, each with its own JWT `typ` (T1). */
export type TokenKind = 'pat' | 'session' | 'component';

/** Signing algorithms a key ring can hold (T2). */
export type KeyAlgorithm = 'EdDSA' | 'ES256' | 'HS256';

/**
 * Signing and verification keys. One key signs; older keys stay verify-only
 * after {@link KeyRing.rotate}. A ring changes in place (rotate, retire) so that
 * a running `Auth` sees the change and drops its verified-signature cache.
 *
 * @example
 * ```ts
 * const ring = await generateKeyRing();
 * await secrets.put('svc-keys', JSON.stringify(ring.exportPrivate()));
 * const again = await importKeyRing(await secrets.get('svc-keys')); // the JSON text, or the parsed object
 * ```
 */
export interface KeyRing {
  /** Public keys (JWKS) for services that only verify. Empty of secrets; HS256 keys are not listed. */
  publicJwks(): { keys: JWK[] };
  /** Every key with its private part, signing key first. Handle as a secret. */
  exportPrivate(): { keys: JWK[] };
  /** Add a new signing key (same algorithm); the previous keys stay verify-only. Returns this ring. */
  rotate(): Promise<KeyRing>;
  /** Forget a verify-only key: tokens signed by it stop verifying. Retiring the signing key is a ValidationError. Returns this ring. */
  retire(kid: string): KeyRing;
}

/** Claims every svc-auth JWT carries (T1). Times are whole seconds since the epoch. */
export interface TokenClaims {
  readonly kind: TokenKind;
  readonly iss: string;
  /** User id. */
  readonly sub: string;
  /** The id of the token's record (at least 128 random bits), for every kind. */
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
}
