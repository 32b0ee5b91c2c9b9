/**
 * The signing keys of one trusted issuer, through jose's remote JWK set: fetched
 * once, refreshed every {@link KEYS_MAX_AGE_MS}, fetched again for an unknown `kid`
 * at most once per {@link KEY_COOLDOWN_MS} (so a key the issuer just rotated in works
 * within 30 s, and a flood of random `kid`s costs one fetch per 30 s). Nothing is
 * fetched per request once the keys are known.
 *
 * An outage of the issuer is an `UnavailableError`, never an allow, with one bounded
 * grace: the last key set fetched keeps verifying for up to {@link STALE_KEYS_MS}
 * after it was fetched while the issuer cannot be reached, so that a short IdP outage
 * does not sign everybody out. Past that, its tokens are refused with 503 until the
 * issuer answers again. After a failed fetch no new one is tried for
 * {@link RETRY_AFTER_FAILURE_MS} (no storm against an IdP that is down).
 *
 * These times are wall-clock (`Date.now()`, as jose keeps them), not the injected
 * `now` of `createAuth`: they pace network traffic; a token's own validity is judged
 * by the injected clock.
 * @module
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  jwksCache,
  type CryptoKey,
  type FetchImplementation,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  type RemoteJWKSet,
} from 'jose';
import { UnavailableError } from '../../errors';
import { Discovery, RETRY_AFTER_FAILURE_MS } from './discovery';
import { FETCH_TIMEOUT_MS, fetchJson } from '../../outbound';
import type { IssuerConfig } from './types';

/** A key set older than this is fetched again on the next token (jose `cacheMaxAge`). */
export const KEYS_MAX_AGE_MS = 10 * 60_000;
/** An unknown `kid` fetches the key set again only if the last fetch is older than this (jose `cooldownDuration`). */
export const KEY_COOLDOWN_MS = 30_000;
/** While the issuer cannot be reached, the last key set fetched still verifies until it is this old. */
export const STALE_KEYS_MS = 60 * 60_000;

type GetKey = (...args: Parameters<JWTVerifyGetKey>) => Promise<CryptoKey>;

/** jose's refusals about the token itself (its `kid` or `alg` has no key): never an outage. */
const TOKEN_FAULTS: ReadonlySet<unknown> = new Set([
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JWS_INVALID',
]);

function codeOf(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
}

/**
 * @internal the key resolver of one trusted issuer, for jose's `jwtVerify`.
 *
 * @example
 * ```ts
 * const keys = new IssuerKeys(config);
 * await jwtVerify(token, keys.getKey, { issuer: config.issuer, audience: config.audience });
 * ```
 */
export class IssuerKeys {
  readonly #discovery: Discovery | undefined;
  readonly #configured: URL | null;
  // jose writes the last key set it fetched, and when (`uat`), here: the stale grace reads it.
  readonly #cache: { uat?: number; jwks?: JSONWebKeySet } = {};
  #remote: RemoteJWKSet | undefined;
  #stale: { uat: number; get: GetKey } | undefined;
  #failedAt = Number.NEGATIVE_INFINITY;
  // A key set given in the options (`jwks`): no fetch, no outage, no grace.
  readonly #local: GetKey | undefined;

  constructor(config: Pick<IssuerConfig, 'issuer' | 'jwksUri' | 'jwks'>) {
    this.#configured = config.jwksUri;
    this.#local = config.jwks === null ? undefined : createLocalJWKSet(config.jwks as JSONWebKeySet);
    this.#discovery = config.jwksUri === null && this.#local === undefined ? new Discovery(config.issuer) : undefined;
  }

  readonly getKey: GetKey = async (header, token) => {
    if (this.#local !== undefined) return this.#local(header, token);
    const remote = this.#remote ?? (await this.#open());
    try {
      return await remote(header, token);
    } catch (err) {
      if (TOKEN_FAULTS.has(codeOf(err))) throw err;
      const stale = this.#staleKeys();
      const outage =
        err instanceof UnavailableError ? err : new UnavailableError('identity provider keys could not be read', { cause: err });
      if (stale === undefined) throw outage;
      try {
        return await stale(header, token);
      } catch (staleErr) {
        // The kid is not among the old keys and the new ones cannot be read: nobody can tell.
        if (codeOf(staleErr) === 'ERR_JWKS_NO_MATCHING_KEY') throw outage;
        throw staleErr;
      }
    }
  };

  async #open(): Promise<RemoteJWKSet> {
    const url = this.#configured ?? (await (this.#discovery as Discovery).jwksUri());
    this.#remote ??= createRemoteJWKSet(url, {
      cooldownDuration: KEY_COOLDOWN_MS,
      cacheMaxAge: KEYS_MAX_AGE_MS,
      timeoutDuration: FETCH_TIMEOUT_MS,
      [jwksCache]: this.#cache as Record<string, never>,
      [customFetch]: this.#fetch,
    });
    return this.#remote;
  }

  // jose's fetch, bounded (fetchJson), with the pause after a failure jose lacks.
  readonly #fetch: FetchImplementation = async (url, options) => {
    if (Date.now() - this.#failedAt < RETRY_AFTER_FAILURE_MS) {
      throw new UnavailableError(`identity provider keys at ${url} failed recently (not tried again yet)`);
    }
    try {
      const { body: json } = await fetchJson(url, { what: 'identity provider keys', headers: options.headers, signal: options.signal });
      // jose parses it again; the set is small and this keeps jose's own checks in force.
      return new Response(JSON.stringify(json), { status: 200, headers: { 'content-type': 'application/json' } });
    } catch (err) {
      this.#failedAt = Date.now();
      throw err;
    }
  };

  /** The last key set fetched, while it is within the stale grace; else `undefined`. */
  #staleKeys(): GetKey | undefined {
    const { uat, jwks } = this.#cache;
    if (uat === undefined || jwks === undefined || Date.now() - uat >= STALE_KEYS_MS) return undefined;
    if (this.#stale?.uat !== uat) this.#stale = { uat, get: createLocalJWKSet(jwks) };
    return this.#stale.get;
  }
}
