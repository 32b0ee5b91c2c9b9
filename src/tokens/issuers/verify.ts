/**
 * Verification of trusted issuers' JWT access tokens (T10, RFC 9068): routed by their
 * unverified `iss` to the one issuer that may have signed them, then jose with the
 * algorithms, the issuer and the audience pinned. A bounded cache of verified tokens
 * (exact text, as for svc-auth's own) spares the crypto on the hot path.
 * @module
 */
import type { JWTPayload, JWTVerifyOptions } from 'jose';
import { boundKeyOf } from './bound';
import { AuthenticationError, type AuthenticationReason } from '../../errors';
import { decodeObject, verifyIssuerJwt } from './jwt';
import { KIND_BY_TYPE } from '../claims';
import { SignatureCache } from '../signature-cache';
import { IssuerKeys, KEYS_MAX_AGE_MS } from './keys';
import { scopePermissions } from './scope';
import type { IssuerClaims, IssuerConfig } from './types';

/**
 * Options of {@link IssuerVerifier}, already checked (`checkTrustedIssuers`).
 *
 * @example
 * ```ts
 * const o: IssuerVerifierOptions = { issuers, ownIssuer: 'https://svc.example', clockToleranceSec: 5, cacheSize: 10_000, isUserId: () => true };
 * ```
 */
export interface IssuerVerifierOptions {
  readonly issuers: readonly IssuerConfig[];
  /** This instance's own `iss`: a token claiming it is left to the own verifier. */
  readonly ownIssuer: string;
  /** Seconds of clock skew allowed for `nbf` (and jose's `iat` reading). */
  readonly clockToleranceSec: number;
  /** Verified tokens remembered; 0 turns the cache off. */
  readonly cacheSize: number;
  /** May this claim value stand as a user id here? */
  readonly isUserId: (id: string, recorded: boolean) => boolean;
  /**
   * Accept any `aud` (default `false`: the issuer's audience is pinned). Only for leak reports: a
   * token of a recorded issuer is this service's to revoke whatever resource it was minted for.
   */
  readonly anyAudience?: boolean;
}

// An access token says what it is with `typ` (RFC 9068 section 2.1) or says nothing;
// an ID token marked as one (`id_token+jwt`, ...) or a token of another kind is refused.
const ACCESS_TYPES = new Set(['jwt', 'at+jwt', 'application/at+jwt']);
const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** A verified token is verified again after this many seconds, so a key the issuer withdrew stops working. */
const FRESH_SEC = KEYS_MAX_AGE_MS / 1000;
/** A recorded issuer's `jti`: what a token store keeps as a record id (oidc-provider writes 43 base64url characters). */
const RECORD_ID = /^[A-Za-z0-9_-]{16,128}$/;
/** A client id worth showing (`Principal.issuedBy.clientId`): printable ASCII, bounded. */
const CLIENT_ID = /^[\x21-\x7e]{1,256}$/;

interface Entry {
  readonly claims: IssuerClaims;
  readonly freshUntil: number;
}

function fail(reason: AuthenticationReason, message: string, cause?: unknown): AuthenticationError {
  return new AuthenticationError(reason, `authentication failed: ${message}`, cause === undefined ? undefined : { cause });
}

/**
 * @internal Verifies the access tokens of the configured trusted issuers. Every
 * refusal is an `AuthenticationError` (reasons `issuer`, `audience`, `expired`,
 * `not_yet_valid`, `algorithm`, `key`, `signature`, `type`, `malformed`); an issuer
 * that cannot be reached is an `UnavailableError`.
 *
 * @example
 * ```ts
 * const verifier = new IssuerVerifier(options);
 * const nowSec = Math.floor(Date.now() / 1000);
 * const claims = verifier.verifyCached(token, nowSec) ?? (await verifier.route(token, nowSec));
 * ```
 */
export class IssuerVerifier {
  readonly #byIssuer: ReadonlyMap<string, { readonly config: IssuerConfig; readonly keys: IssuerKeys }>;
  readonly #own: string;
  readonly #toleranceSec: number;
  readonly #isUserId: (id: string, recorded: boolean) => boolean;
  readonly #cache: SignatureCache<Entry>;
  readonly #anyAudience: boolean;

  constructor(options: IssuerVerifierOptions) {
    this.#byIssuer = new Map(options.issuers.map((config) => [config.issuer, { config, keys: new IssuerKeys(config) }]));
    this.#own = options.ownIssuer;
    this.#toleranceSec = options.clockToleranceSec;
    this.#isUserId = options.isUserId;
    this.#cache = new SignatureCache<Entry>(options.cacheSize);
    this.#anyAudience = options.anyAudience === true;
  }

  /**
   * The claims of `token` if it was verified within the last 10 minutes, synchronously;
   * `undefined` otherwise (then {@link IssuerVerifier.route}). Throws `expired` once
   * `nowSec >= exp`.
   */
  verifyCached(token: string, nowSec: number): IssuerClaims | undefined {
    const hit = this.#cache.get(token);
    if (hit === undefined || nowSec >= hit.freshUntil) return undefined;
    if (nowSec >= hit.claims.exp) throw fail('expired', 'token expired');
    return hit.claims;
  }

  /**
   * Verify `token` if it is addressed to a trusted issuer. `undefined` when it is not
   * an issuer's token at all (svc-auth's own `typ`, its own `iss`, or not a readable
   * JWT): the instance's own verifier answers for it. A readable JWT from any other
   * issuer is refused with reason `issuer` at once, without a fetch: a flood of tokens
   * naming random issuers costs nothing but their decoding.
   */
  route(token: string, nowSec: number): Promise<IssuerClaims> | undefined {
    if (!COMPACT.test(token)) return undefined;
    const firstDot = token.indexOf('.');
    const header = decodeObject(token.slice(0, firstDot));
    if (header === undefined) return undefined;
    if (typeof header['typ'] === 'string' && KIND_BY_TYPE.has(header['typ'])) return undefined;
    const payload = decodeObject(token.slice(firstDot + 1, token.indexOf('.', firstDot + 1)));
    if (payload === undefined) return undefined;
    const iss = payload['iss'];
    if (iss === this.#own) return undefined;
    const trusted = typeof iss === 'string' ? this.#byIssuer.get(iss) : undefined;
    if (trusted === undefined) return Promise.reject(fail('issuer', 'not issued by a trusted issuer'));
    return this.#verify(trusted.config, trusted.keys, token, header, nowSec);
  }

  async #verify(
    config: IssuerConfig,
    keys: IssuerKeys,
    token: string,
    header: Record<string, unknown>,
    nowSec: number,
  ): Promise<IssuerClaims> {
    const { alg, typ } = header;
    // Before any key is looked up: `none`, HMAC (the public key as a secret) and any
    // algorithm outside the issuer's list never reach a fetch or a verification.
    if (typeof alg !== 'string' || !(config.algorithms as readonly string[]).includes(alg)) {
      throw fail('algorithm', 'algorithm not accepted from this issuer');
    }
    if (typ !== undefined && (typeof typ !== 'string' || !ACCESS_TYPES.has(typ.toLowerCase()))) {
      throw fail('type', 'not an access token');
    }
    const options: JWTVerifyOptions = {
      algorithms: [...config.algorithms],
      issuer: config.issuer,
      ...(this.#anyAudience ? {} : { audience: config.audience }),
      requiredClaims: ['exp'],
      currentDate: new Date(nowSec * 1000),
      clockTolerance: this.#toleranceSec,
    };
    const payload = await verifyIssuerJwt(token, keys, options);
    // jose allowed the tolerance on `exp` too; an expired token is expired here, as a cache hit would find.
    const exp = payload.exp;
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw fail('malformed', 'exp is not a number');
    if (nowSec >= exp) throw fail('expired', 'token expired');
    const jkt = boundKeyOf(payload);
    this.#checkAge(config, payload, exp, nowSec);
    const userId = this.#userIdOf(config, payload);
    const scope = scopePermissions(payload, config.scopes);
    if (scope === undefined) throw fail('malformed', 'scope or scp is not a list of words');
    // A recorded issuer's token is found by its jti (a record id, as ours are).
    const jti = config.recorded ? payload.jti : null;
    if (config.recorded && (typeof jti !== 'string' || !RECORD_ID.test(jti))) throw fail('malformed', 'jti is missing or not a record id');
    const claims: IssuerClaims = Object.freeze({
      issuer: config.issuer,
      userId,
      exp: Math.floor(exp),
      permissions: scope.permissions,
      scopeClaim: scope.claim,
      clientId: clientIdOf(payload),
      jti: jti ?? null,
      recorded: config.recorded,
      jkt,
    });
    this.#cache.set(token, Object.freeze({ claims, freshUntil: nowSec + FRESH_SEC }));
    return claims;
  }

  /** `iat` not in the future, and no longer a life than `maxTokenAge` (a token valid for a century is a stolen key's dream). */
  #checkAge(config: IssuerConfig, payload: JWTPayload, exp: number, nowSec: number): void {
    const iat = payload.iat;
    if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat))) throw fail('malformed', 'iat is not a number');
    if (iat !== undefined && iat > nowSec + this.#toleranceSec) throw fail('not_yet_valid', 'issued in the future');
    // Without iat the rest of its life is what can be judged: it must still fit.
    if (exp - (iat ?? nowSec) > config.maxTokenAgeSec) throw fail('malformed', "lifetime longer than the issuer's maxTokenAge");
  }

  /**
   * Whose token it is (T10). `sub` is unique per issuer only, so the id is derived from the
   * issuer and the claim, unless the option maps it (`userId`); a recorded issuer is svc-auth's
   * own server, whose `sub` is this service's user id.
   */
  #userIdOf(config: IssuerConfig, payload: JWTPayload): string {
    let id: unknown;
    if (config.userId !== null) {
      try {
        id = config.userId(Object.freeze({ ...payload }));
      } catch {
        // Its message may quote claims: not carried.
        throw fail('malformed', "the issuer's userId function found no user id");
      }
      if (typeof id !== 'string' || !this.#isUserId(id, config.recorded))
        throw fail('malformed', "the issuer's userId function found no user id accepted here");
      return id;
    }
    const value = Object.hasOwn(payload, config.userIdClaim) ? payload[config.userIdClaim] : undefined;
    id = typeof value === 'string' && value.length > 0 ? `${config.userIdPrefix ?? ''}${value}` : undefined;
    if (typeof id !== 'string' || !this.#isUserId(id, config.recorded))
      throw fail('malformed', `claim ${config.userIdClaim} is not a user id accepted here`);
    return id;
  }
}

/** The OAuth client a token was issued to: RFC 9068's `client_id`, else OIDC's `azp`; `null` when neither is a short printable string. */
function clientIdOf(payload: JWTPayload): string | null {
  for (const name of ['client_id', 'azp']) {
    const v = Object.hasOwn(payload, name) ? payload[name] : undefined;
    if (typeof v === 'string' && CLIENT_ID.test(v)) return v;
  }
  return null;
}
