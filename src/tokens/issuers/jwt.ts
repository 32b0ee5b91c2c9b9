/**
 * Verifying a foreign JWT with jose against an issuer's keys: the pieces that
 * trusted issuers' access tokens and workload identity tokens share. Every
 * refusal is an `AuthenticationError` with its reason.
 * @module
 */
import { base64url, jwtVerify, type CryptoKey, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { AuthenticationError, SvcAuthError, type AuthenticationReason } from '../../errors';
import type { IssuerKeys } from './keys';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** Keys tried when the issuer's set has several that fit a token (no `kid`, or one `kid` twice). */
const MAX_CANDIDATES = 8;

function fail(reason: AuthenticationReason, message: string, cause?: unknown): AuthenticationError {
  return new AuthenticationError(reason, `authentication failed: ${message}`, cause === undefined ? undefined : { cause });
}

function codeOf(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
}

/**
 * @internal A base64url JSON object (a JWT's header or payload segment), or `undefined`; never throws.
 *
 * @example
 * ```ts
 * decodeObject(token.slice(0, token.indexOf('.')))?.['alg']; // 'RS256'
 * ```
 */
export function decodeObject(segment: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(strictUtf8.decode(base64url.decode(segment)));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @internal jose's `jwtVerify` against an issuer's keys, each refusal an `AuthenticationError` with its reason
 * (`signature`, `algorithm`, `key`, `expired`, `audience`, `not_yet_valid`, `issuer`, `malformed`) and an
 * outage of the issuer an `UnavailableError`.
 *
 * @example
 * ```ts
 * const payload = await verifyIssuerJwt(token, new IssuerKeys(config), { algorithms: ['RS256'], issuer, audience });
 * ```
 */
export async function verifyIssuerJwt(token: string, keys: Pick<IssuerKeys, 'getKey'>, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await verifyWithCandidates(token, keys, options)).payload;
  } catch (err) {
    throw fromJose(err);
  }
}

/** jwtVerify, trying each fitting key when the issuer's set has several (as jose's documentation shows). */
async function verifyWithCandidates(
  token: string,
  keys: Pick<IssuerKeys, 'getKey'>,
  options: JWTVerifyOptions,
): Promise<{ payload: JWTPayload }> {
  try {
    return await jwtVerify(token, keys.getKey, options);
  } catch (err) {
    if (codeOf(err) !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw err;
    let last: unknown = err;
    let tried = 0;
    for await (const key of err as AsyncIterable<CryptoKey>) {
      if (++tried > MAX_CANDIDATES) break;
      try {
        return await jwtVerify(token, key, options);
      } catch (e) {
        if (codeOf(e) !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw e;
        last = e;
      }
    }
    throw last;
  }
}

/** jose's errors -> our reasons; an outage passes through; anything unexpected is `malformed` (refused). */
function fromJose(err: unknown): unknown {
  // Ours already (an outage of the issuer: UnavailableError): as it is.
  if (err instanceof SvcAuthError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as { code?: unknown; claim?: unknown };
  switch (e.code) {
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return fail('signature', 'signature not valid', err);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return fail('algorithm', 'algorithm not accepted from this issuer', err);
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return fail('key', 'no key of this issuer fits the token', err);
    case 'ERR_JWT_EXPIRED':
      return fail('expired', 'token expired', err);
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (e.claim === 'aud') return fail('audience', 'not issued for this service', err);
      if (e.claim === 'nbf') return fail('not_yet_valid', 'not valid yet', err);
      if (e.claim === 'iss') return fail('issuer', 'not issued by a trusted issuer', err);
      return fail('malformed', 'claims are not well formed', err);
    default:
      return fail('malformed', 'token is not well formed', err);
  }
}
