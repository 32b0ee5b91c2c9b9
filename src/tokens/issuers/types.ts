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
  /**
   * The issuer's public keys, given here instead of fetched: a JWK set of public keys only
   * (no `d` or other private member), at most 16. Nothing is fetched for
   * this issuer; a key it rotates in works once this set names it. Not with `jwksUri`.
   */
  jwks?: { keys: readonly Record<string, unknown>[] };
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
  /**
   * What the token's `scope`/`scp` claim means here. `'narrow'` (the default): the svc permission
   * names in it (`repo:read`, ...) narrow the session to themselves; OpenID Connect's own names
   * (`openid`, `profile`, `email`, `address`, `phone`, `offline_access`) and those of
   * `ignoredScopes` say nothing; any other word narrows too (to the svc names beside it, maybe
   * none), since a word nobody here can read may be a limit the IdP meant. `'ignore'`: the claim
   * says nothing about svc permissions (the session is as strong as the user's roles). A map:
   * each of the IdP's scope names to the svc permissions it grants (svc names not in the map
   * still grant themselves). Not for a `recorded` issuer, whose scope is always the user's consent.
   */
  scopes?: 'narrow' | 'ignore' | Readonly<Record<string, readonly Permission[]>>;
  /** Scope names of this IdP that say nothing about svc permissions (`read:billing`, `api://x/.default`). Default none. */
  ignoredScopes?: readonly string[];
  /**
   * The user id of a token, from its verified claims, for a deployment whose users are the same
   * people at several issuers (a claim every one of your issuers writes the same way). Without it
   * the id is derived from the issuer and `userIdClaim` (`<issuer prefix>_<value>`, T10), because
   * `sub` is unique per issuer only: `sub: alice` of one IdP is not `alice` of another. Its result
   * must be a valid user id; a throw or anything else refuses the token. Not with `userIdClaim`,
   * nor for a `recorded` issuer (whose `sub` is this service's user id).
   */
  userId?: (claims: Readonly<Record<string, unknown>>) => string;
  /**
   * The longest lifetime accepted, `exp - iat` (or `exp - now` without `iat`): `<N>d`, `<N>h` or
   * `<N>m`, at most `30d`. Default `24h`. An `iat` later than now (beyond the clock tolerance) is refused too.
   */
  maxTokenAge?: string;
}

/** @internal how one issuer's scope claim is read, after validation. */
export interface ScopeReading {
  /** The claim says nothing about svc permissions (`scopes: 'ignore'`). */
  readonly ignore: boolean;
  /** A present claim narrows even when empty or made only of OIDC names (a `recorded` issuer: the user's consent). */
  readonly strict: boolean;
  /** The IdP's scope names mapped to svc permissions (a bit mask in PERMISSIONS order). */
  readonly map: ReadonlyMap<string, number>;
  /** Names that say nothing: OIDC's own and `ignoredScopes`. */
  readonly ignored: ReadonlySet<string>;
}

/** @internal a trusted issuer after validation, defaults filled in. */
export interface IssuerConfig {
  readonly issuer: string;
  readonly audience: string;
  readonly userIdClaim: string;
  readonly jwksUri: URL | null;
  /** The given public key set (`jwks`), else `null` (then the keys are fetched). */
  readonly jwks: { readonly keys: readonly Record<string, unknown>[] } | null;
  readonly algorithms: readonly IssuerAlgorithm[];
  readonly recorded: boolean;
  readonly scopes: ScopeReading;
  /** The explicit user id mapping, else `null`. */
  readonly userId: ((claims: Readonly<Record<string, unknown>>) => string) | null;
  /** What a derived user id starts with (`<slug>_`); `null` for a `recorded` issuer or with `userId`. */
  readonly userIdPrefix: string | null;
  /** `maxTokenAge` in seconds. */
  readonly maxTokenAgeSec: number;
}

/**
 * @internal What a verified access token of a trusted issuer says. `permissions` is
 * `null` when its `scope`/`scp` claim does not narrow it (absent, ignored, or only words
 * that say nothing: {@link ScopeReading}); otherwise the svc permissions it grants (maybe
 * none), one frozen array per distinct set, so that the same set is the same object.
 */
export interface IssuerClaims {
  readonly issuer: string;
  readonly userId: string;
  /** Expiry, whole seconds since the epoch. */
  readonly exp: number;
  readonly permissions: readonly Permission[] | null;
  /** Which claim narrowed it (`scope`, `scp`, or both), when `permissions` is not `null`. */
  readonly scopeClaim: 'scope' | 'scp' | 'scope and scp' | null;
  /** The OAuth client the token was issued to (`client_id`, RFC 9068; else `azp`), or `null`. */
  readonly clientId: string | null;
  /** The token's `jti` when its issuer is `recorded` (then required), else `null`. */
  readonly jti: string | null;
  /** Whether its issuer is `recorded` (svc-auth's own authorization server). */
  readonly recorded: boolean;
  /** The key the token is bound to (`cnf.jkt`, RFC 9449): every use needs a DPoP proof by it. `null`: a bearer token. */
  readonly jkt: string | null;
}
