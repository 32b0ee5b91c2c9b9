/**
 * Contract of trusted issuers (T10): the option a user writes, and what a
 * verified access token of such an issuer comes down to.
 * @module
 */
import type { Permission } from '../../core/vocabulary';

/**
 * Signature algorithms a trusted issuer's tokens may use: asymmetric only. `none` never
 * verifies, and neither does an HMAC algorithm (HS256 and kin): with a public JWKS, a
 * token "signed" with the issuer's public key as an HMAC secret is the classic
 * algorithm-confusion forgery.
 *
 * @example
 * ```ts
 * const algorithms: IssuerAlgorithm[] = ['RS256']; // what Auth0, Entra ID and Okta sign with
 * ```
 */
export type IssuerAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'EdDSA';

/**
 * One identity provider (an OAuth 2.0 / OpenID Connect authorization server) whose JWT
 * access tokens this service accepts as sessions of their user (T10). Checked when
 * `createAuth` builds the object.
 *
 * @example
 * ```ts
 * const keycloak: TrustedIssuer = {
 *   issuer: 'https://sso.example.com/realms/acme', // exactly as its tokens write `iss`
 *   audience: 'https://api.example.com',           // what `aud` must contain
 * };
 * ```
 */
export interface TrustedIssuer {
  /**
   * The issuer identifier, compared with `iss` character for character (Auth0's ends
   * with `/`). An absolute `https` URL without query or fragment; `http` only on
   * `localhost`, `127.0.0.1` or `[::1]`.
   */
  issuer: string;
  /**
   * This service's identifier at that issuer: `aud` (a string or an array) must contain
   * it. Required: a token minted for another API of the same issuer must never work here.
   */
  audience: string;
  /** The claim that holds the user id. Default `sub`. Its value must be a valid user id. */
  userIdClaim?: string;
  /**
   * Where the issuer publishes its keys (JWKS). Default: discovered, from RFC 8414
   * `/.well-known/oauth-authorization-server` metadata or else OpenID Connect
   * `/.well-known/openid-configuration`. Same URL rules as `issuer`.
   */
  jwksUri?: string;
  /** Algorithms accepted from this issuer. Default: every {@link IssuerAlgorithm}. */
  algorithms?: IssuerAlgorithm[];
  /**
   * Every token of this issuer must have a session record in this service's token store, its
   * id the token's `jti`, under the record of its grant, read on every request like a session's
   * (T5): revoking the grant's record ends all its access tokens on their next request. Set by
   * `svc-auth/oauth`'s `trustedIssuerFor`, for the authorization server that writes those
   * records into the same `Auth`. Default `false`.
   */
  recorded?: boolean;
}

/** @internal a trusted issuer after validation, defaults filled in. */
export interface IssuerConfig {
  readonly issuer: string;
  readonly audience: string;
  readonly userIdClaim: string;
  readonly jwksUri: URL | null;
  readonly algorithms: readonly IssuerAlgorithm[];
  readonly recorded: boolean;
}

/**
 * @internal What a verified access token of a trusted issuer says. `permissions` is
 * `null` without a `scope`/`scp` claim; otherwise the svc permissions in it (maybe
 * none), one frozen array per distinct set, so that the same set is the same object.
 */
export interface IssuerClaims {
  readonly issuer: string;
  readonly userId: string;
  /** Expiry, whole seconds since the epoch. */
  readonly exp: number;
  readonly permissions: readonly Permission[] | null;
  /** The token's `jti` when its issuer is `recorded` (then required), else `null`. */
  readonly jti: string | null;
}
