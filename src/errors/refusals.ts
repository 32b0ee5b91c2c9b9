/**
 * Refusals and failures: a credential not accepted (401), a caller not allowed (403), something not
 * found (404) or in conflict (409), a dependency unavailable (503).
 * @module
 */
import { SvcAuthError } from './base';

/**
 * Why a credential was not accepted. The last five come from tokens of a trusted
 * issuer (an identity provider, `trustedIssuers`): `issuer` (its `iss` is no issuer
 * this service trusts), `audience` (its `aud` does not name this service),
 * `not_yet_valid` (`nbf` in the future), `algorithm` (an algorithm that issuer may not
 * use: `none`, HMAC, one outside its list) and `key` (a `kid` the issuer does not
 * publish, even after its keys were fetched again). The set is closed: new reasons are added, never renamed.
 */
export type AuthenticationReason =
  | 'missing'
  | 'malformed'
  | 'signature'
  | 'expired'
  | 'revoked'
  | 'unknown'
  | 'type'
  | 'issuer'
  | 'audience'
  | 'not_yet_valid'
  | 'algorithm'
  | 'key'
  | 'dpop' // RFC 9449: a bad, stale, replayed or foreign DPoP proof
  | 'bound' // a key-bound token as Bearer, or an unbound one with the DPoP scheme
  | 'dpop_nonce'; // RFC 9449 §9: the proof lacks the resource's current nonce (`dpopNonce`)

/**
 * The credential is missing, malformed, forged, expired, revoked, unknown or of
 * the wrong kind. HTTP maps it to 401.
 *
 * @example
 * ```ts
 * import { AuthenticationError } from 'svc-auth';
 * try { await auth.authenticate(token); }
 * catch (err) { if (err instanceof AuthenticationError && err.reason === 'expired') renew(); }
 * ```
 */
export class AuthenticationError extends SvcAuthError {
  /** Which check failed. */
  readonly reason: AuthenticationReason;
  /**
   * The token's id (its JWT `jti`, never its value) when the signature verified
   * and the refusal came from its record (revoked, expired, unknown): lets a log
   * line or an audit event trace a revoked token that is still in use.
   */
  readonly tokenId?: string;
  /**
   * With reason `dpop_nonce`: the nonce the client must put in its next proof, answered as the
   * `DPoP-Nonce` header (RFC 9449 §9). A public value, handed to any client that asks.
   */
  readonly dpopNonce?: string;

  constructor(reason: AuthenticationReason, message?: string, options?: { cause?: unknown; tokenId?: string; dpopNonce?: string }) {
    super(
      'authentication',
      message ?? `authentication failed: ${reason}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = reason;
    if (options?.tokenId !== undefined) this.tokenId = options.tokenId;
    if (options?.dpopNonce !== undefined) this.dpopNonce = options.dpopNonce;
  }
}

/**
 * Why a valid credential was refused outright: `ip`, the token may not be used from the request's address (its
 * `allowedIps`, or an ancestor's, do not hold it, or it is not known); `policy`, an org's policy refuses it there (G2).
 */
export type ForbiddenReason = 'ip' | 'policy';

/**
 * The caller is known but may not do this. HTTP maps it to 403.
 *
 * `authenticate` throws it with `reason: 'ip'` and the token's id when a valid token is used
 * from an address its `allowedIps` do not hold: the credential is genuine, so not a 401.
 *
 * @example
 * ```ts
 * import { ForbiddenError } from 'svc-auth';
 * if (err instanceof ForbiddenError) res.statusCode = 403;
 * if (err instanceof ForbiddenError && err.reason === 'ip') console.warn('token', err.tokenId, 'used from elsewhere');
 * ```
 */
export class ForbiddenError extends SvcAuthError {
  /** Set when the refusal is one of the fixed kinds of {@link ForbiddenReason}. */
  readonly reason?: ForbiddenReason;
  /** The refused token's id (its JWT `jti`, never its value), when the refusal is about a token. */
  readonly tokenId?: string;

  constructor(message = 'forbidden', options?: { cause?: unknown; reason?: ForbiddenReason; tokenId?: string }) {
    super('forbidden', message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.reason !== undefined) this.reason = options.reason;
    if (options?.tokenId !== undefined) this.tokenId = options.tokenId;
  }
}

/**
 * Nothing of that name among what the caller may see. HTTP maps it to 404.
 *
 * @example
 * ```ts
 * import { NotFoundError } from 'svc-auth';
 * if (err instanceof NotFoundError) res.statusCode = 404;
 * ```
 */
export class NotFoundError extends SvcAuthError {
  constructor(message = 'not found', options?: { cause?: unknown }) {
    super('not_found', message, options);
  }
}

/**
 * The request clashes with existing state, such as an active token of the same name. HTTP maps it to 409.
 *
 * @example
 * ```ts
 * import { ConflictError } from 'svc-auth';
 * if (err instanceof ConflictError) console.error('pick another name');
 * ```
 */
export class ConflictError extends SvcAuthError {
  constructor(message = 'conflict', options?: { cause?: unknown }) {
    super('conflict', message, options);
  }
}

/**
 * A dependency (a store, a database) failed or timed out. The library fails
 * closed: nothing is allowed on this error. HTTP maps it to 503.
 *
 * @example
 * ```ts
 * import { UnavailableError } from 'svc-auth';
 * if (err instanceof UnavailableError) res.setHeader('Retry-After', '1');
 * ```
 */
export class UnavailableError extends SvcAuthError {
  constructor(message = 'service unavailable', options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}
