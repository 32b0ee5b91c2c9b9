/**
 * Verification of a workload's identity token (W3): routed by its unverified
 * `iss` to the one configured issuer, whose keys come from the trusted-issuer
 * machinery (discovery or `jwksUri`, jose's remote key set with its cooldown,
 * bounded fetches). Asymmetric algorithms only; `aud` equal to the configured
 * audience; `exp`, `iat` and `nbf` within the clock tolerance; a `jti` required.
 * @module
 */
import { AuthenticationError, type AuthenticationReason } from '../../errors';
import { decodeObject, IssuerKeys, ISSUER_ALGORITHMS, verifyIssuerJwt } from '../../tokens';
import type { WorkloadConfig } from './options';

/**
 * @internal A verified workload token: its issuer's config and its claims.
 *
 * @example
 * ```ts
 * const { config, claims, jti, exp } = await verifier.verify(jwt, nowSec);
 * ```
 */
export interface VerifiedWorkload {
  readonly config: WorkloadConfig;
  readonly claims: Readonly<Record<string, unknown>>;
  readonly jti: string;
  /** Whole seconds since the epoch. */
  readonly exp: number;
}

/** A workload token is small (GitHub's is about 1 KiB); a bigger text is not parsed. */
const MAX_JWT = 8192;
const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const JTI = /^[\x21-\x7e]{1,256}$/;
/** The longest life of a workload token accepted, `exp - iat`: CI tokens live minutes, Kubernetes' an hour or a day. */
const MAX_AGE_SEC = 24 * 3600;

function fail(reason: AuthenticationReason, message: string): AuthenticationError {
  return new AuthenticationError(reason, `workload token refused: ${message}`);
}

/**
 * @internal Verifies workload identity tokens of the configured issuers. Every refusal is an
 * `AuthenticationError` (reasons `malformed`, `issuer`, `algorithm`, `key`, `signature`, `audience`,
 * `expired`, `not_yet_valid`); an issuer that cannot be reached is an `UnavailableError`.
 *
 * @example
 * ```ts
 * const verifier = new WorkloadVerifier(configs, 5);
 * const verified = await verifier.verify(jwt, Math.floor(Date.now() / 1000));
 * ```
 */
export class WorkloadVerifier {
  readonly #byIssuer: ReadonlyMap<string, { readonly config: WorkloadConfig; readonly keys: IssuerKeys }>;
  readonly #toleranceSec: number;

  constructor(configs: readonly WorkloadConfig[], toleranceSec: number) {
    this.#byIssuer = new Map(configs.map((config) => [config.issuer, { config, keys: new IssuerKeys({ ...config, jwks: null }) }]));
    this.#toleranceSec = toleranceSec;
  }

  async verify(jwt: unknown, nowSec: number): Promise<VerifiedWorkload> {
    if (typeof jwt !== 'string' || jwt.length > MAX_JWT || !COMPACT.test(jwt)) throw fail('malformed', 'not a signed JWT');
    const [head, body] = jwt.split('.') as [string, string];
    const header = decodeObject(head);
    const unverified = decodeObject(body);
    if (header === undefined || unverified === undefined) throw fail('malformed', 'not a signed JWT');
    const iss = unverified['iss'];
    const trusted = typeof iss === 'string' ? this.#byIssuer.get(iss) : undefined;
    // Refused before any fetch: a flood of tokens naming random issuers costs their decoding only.
    if (trusted === undefined) throw fail('issuer', 'not issued by a trusted workload issuer');
    const alg = header['alg'];
    // `none`, HMAC (the public key as a secret) and the rest never reach a key lookup.
    if (typeof alg !== 'string' || !(ISSUER_ALGORITHMS as readonly string[]).includes(alg)) {
      throw fail('algorithm', 'algorithm not accepted');
    }
    const { config, keys } = trusted;
    const claims = await verifyIssuerJwt(jwt, keys, {
      algorithms: [...ISSUER_ALGORITHMS],
      issuer: config.issuer,
      audience: config.audience,
      requiredClaims: ['exp', 'iat'],
      currentDate: new Date(nowSec * 1000),
      clockTolerance: this.#toleranceSec,
    });
    // jose accepts an `aud` list that contains ours: a token meant for several services is not one for us alone.
    const aud = claims.aud;
    if (!(aud === config.audience || (Array.isArray(aud) && aud.length === 1 && aud[0] === config.audience))) {
      throw fail('audience', 'aud must be exactly the configured audience');
    }
    const { exp, iat, jti } = claims;
    if (typeof exp !== 'number' || !Number.isFinite(exp) || typeof iat !== 'number' || !Number.isFinite(iat)) {
      throw fail('malformed', 'exp and iat must be numbers');
    }
    // jose allowed the tolerance on `exp`; an expired token is expired here.
    if (nowSec >= exp) throw fail('expired', 'token expired');
    if (iat > nowSec + this.#toleranceSec) throw fail('not_yet_valid', 'issued in the future');
    if (exp - iat > MAX_AGE_SEC) throw fail('malformed', 'lifetime longer than a day');
    if (typeof jti !== 'string' || !JTI.test(jti)) throw fail('malformed', 'a jti is required (a token usable once)');
    return Object.freeze({ config, claims: Object.freeze({ ...claims }), jti, exp: Math.floor(exp) });
  }
}
