/**
 * Verification (T1, T2): cheap structural checks first (size, shape, header), then
 * jose with the algorithm and issuer pinned, then a strict claim schema. A bounded
 * cache of verified signatures skips the crypto for a token seen before.
 * @module
 */
import { base64url, jwtVerify } from 'jose';
import { AuthenticationError, ValidationError, type AuthenticationReason } from '../errors';
import { KIND_BY_TYPE, canonicalHeader, canonicalPayload, checkClaimSet } from './claims';
import { isLowS, findKey, ringVersion, KID_PATTERN } from './keys';
import { SignatureCache } from './signature-cache';
import { readOptions } from './verify-options';
import type { KeyRing, TokenClaims, TokenKind } from './types';

/**
 * Longest token accepted, in characters (T1); checked before anything parses it.
 * @example
 * ```ts
 * if (header.length > MAX_TOKEN_CHARS + 7) return unauthorized(); // 'Bearer ' + token
 * ```
 */
export const MAX_TOKEN_CHARS = 8 * 1024;

// An empty signature is let through here so that `alg: none` tokens are refused
// as a signature failure, by the algorithm pin, like every other wrong algorithm.
const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const ALGORITHMS = new Set(['EdDSA', 'ES256', 'HS256']);
const HEADER_NAMES = new Set(['typ', 'alg', 'kid']);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Options of {@link TokenVerifier}. Checked when the verifier is built.
 * @example
 * ```ts
 * const options: TokenVerifierOptions = { ring, issuer: 'https://svc.example', cacheSize: 0 };
 * ```
 */
export interface TokenVerifierOptions {
  /** The ring whose keys verify. Rotation and retirement are seen at once. */
  ring: KeyRing;
  /** The only accepted `iss`. */
  issuer: string;
  /** Seconds by which `iat` may lie in the future (clock skew). Default 5, at most 300. */
  clockToleranceSec?: number;
  /** Verified tokens remembered. Default 10 000; 0 disables the cache. */
  cacheSize?: number;
  /** Longest accepted `exp - iat` per kind. Default: `LIFETIMES[kind].maxSec`. */
  maxLifetimeSec?: Partial<Record<TokenKind, number>>;
}

/**
 * Verifies svc-auth JWTs against a key ring. Every failure is an
 * `AuthenticationError` whose `reason` is `malformed` (not a compact JWT of at most
 * 8 KiB, odd header or claims, lifetime above the kind's maximum, `iat` in the
 * future), `type` (not one of {@link TOKEN_TYPES}), `signature` (unknown, retired or
 * mismatched key or algorithm, `none`, bad signature, other issuer) or `expired`
 * (`now >= exp`). Revocation is not checked here: the service reads the record.
 *
 * @example
 * ```ts
 * import { generateKeyRing, TokenVerifier } from 'svc-auth';
 * const ring = await generateKeyRing();
 * const verifier = new TokenVerifier({ ring, issuer: 'https://svc.example' });
 * const claims = await verifier.verify(token, Math.floor(Date.now() / 1000));
 * if (claims.kind === 'pat') console.log(claims.sub, claims.jti);
 * ```
 */
export class TokenVerifier {
  readonly #ring: KeyRing;
  readonly #issuer: string;
  readonly #toleranceSec: number;
  readonly #maxLifetime: Readonly<Record<TokenKind, number>>;
  readonly #cache: SignatureCache;
  #ringVersion: number;

  /** @throws ValidationError listing every bad option. */
  constructor(options: TokenVerifierOptions) {
    const o = readOptions(options);
    this.#ring = o.ring;
    this.#issuer = o.issuer;
    this.#toleranceSec = o.toleranceSec;
    this.#maxLifetime = o.maxLifetime;
    this.#cache = new SignatureCache(o.cacheSize);
    this.#ringVersion = ringVersion(o.ring);
  }

  /** Tokens currently remembered as verified (for tests and metrics). */
  get cachedCount(): number {
    return this.#cache.size;
  }

  /**
   * Verify `token` at time `nowSec` (seconds since the epoch; injected so tests pin time).
   * Resolves to frozen claims; rejects with `AuthenticationError` (see the class).
   * @throws ValidationError when `nowSec` is not a finite number (a caller bug, not a bad token).
   */
  async verify(token: unknown, nowSec: number): Promise<TokenClaims> {
    if (typeof nowSec !== 'number' || !Number.isFinite(nowSec))
      throw new ValidationError([{ path: 'nowSec', message: 'expected seconds since the epoch' }]);
    const now = Math.floor(nowSec);
    if (typeof token !== 'string') throw fail('malformed', 'token is not a string');
    if (token.length > MAX_TOKEN_CHARS) throw fail('malformed', 'token is longer than 8 KiB');

    const version = ringVersion(this.#ring);
    if (version !== this.#ringVersion) {
      this.#cache.clear();
      this.#ringVersion = version;
    }
    const cached = this.#cache.get(token);
    if (cached !== undefined) return this.#checkTimes(cached, now);

    if (!COMPACT.test(token)) throw fail('malformed', 'not a compact JWT of three base64url segments');
    if (!hasCanonicalTail(token)) throw fail('malformed', 'signature is not canonical base64url');
    const firstDot = token.indexOf('.');
    const header = decodeHeader(token.slice(0, firstDot));
    const kind = KIND_BY_TYPE.get(header.typ);
    if (kind === undefined) throw fail('type', 'not an svc-auth token type');
    // Exactly the bytes this library writes: no duplicate members (JSON.parse keeps
    // the last), no byte order mark, no spacing or escapes, no other member order.
    if (token.slice(0, firstDot) !== canonicalHeader(header)) throw fail('malformed', 'header is not in the canonical form');
    const key = findKey(this.#ring, header.kid);
    if (key === undefined) throw fail('signature', 'unknown or retired key');
    if (header.alg !== key.alg) throw fail('signature', 'algorithm does not match the key');
    if (key.alg === 'ES256' && !isLowS(token.slice(token.lastIndexOf('.') + 1)))
      throw fail('signature', 'ES256 signature not in low-S form');

    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, key.verifyKey, {
        algorithms: [key.alg],
        issuer: this.#issuer,
        currentDate: new Date(now * 1000),
        clockTolerance: 0,
      }));
    } catch (err) {
      // jose reports expiry after it checked the signature and the issuer: the
      // claims it hands back are verified. They go through the same checks below,
      // and `#checkTimes` then refuses the token as expired with its claims known,
      // so that an expired token still in use can be traced by its id.
      payload = expiredPayload(err);
      if (payload === undefined) throw fromJose(err);
    }
    // The ring may have changed while the signature was checked: a key retired
    // meanwhile must not let this token through, nor into the cache.
    const stillCurrent = ringVersion(this.#ring) === version;
    if (!stillCurrent && findKey(this.#ring, header.kid) !== key) throw fail('signature', 'key retired');

    const checked = checkClaimSet(payload);
    if (!checked.ok) throw fail('malformed', `claim ${checked.path} ${checked.message}`);
    const { iss, sub, jti, iat, exp } = checked.claims;
    if (token.slice(firstDot + 1, token.lastIndexOf('.')) !== canonicalPayload(checked.claims)) {
      throw fail('malformed', 'claims are not in the canonical form');
    }
    if (exp - iat > this.#maxLifetime[kind]) throw fail('malformed', 'lifetime longer than allowed for this kind');
    const claims: TokenClaims = Object.freeze({ kind, iss, sub, jti, iat, exp });
    this.#checkTimes(claims, now);
    if (stillCurrent) this.#cache.set(token, claims);
    return claims;
  }

  /**
   * The claims of `token` if it is in the verified-signature cache, checked as
   * {@link TokenVerifier.verify} checks a cache hit (times, and the key ring not
   * changed since), synchronously; `undefined` otherwise, and then `verify` has
   * the answer. Spares a promise per request on a hot path. Throws
   * `AuthenticationError` (`expired`, `malformed`) as `verify` would.
   *
   * @example
   * ```ts
   * const nowSec = Math.floor(Date.now() / 1000);
   * const claims = verifier.verifyCached(token, nowSec) ?? (await verifier.verify(token, nowSec));
   * ```
   */
  verifyCached(token: unknown, nowSec: number): TokenClaims | undefined {
    if (typeof token !== 'string' || typeof nowSec !== 'number' || !Number.isFinite(nowSec)) return undefined;
    // A changed ring may have retired the key: leave it to verify, which clears the cache.
    if (ringVersion(this.#ring) !== this.#ringVersion) return undefined;
    const cached = this.#cache.get(token);
    return cached === undefined ? undefined : this.#checkTimes(cached, Math.floor(nowSec));
  }

  #checkTimes(claims: TokenClaims, now: number): TokenClaims {
    if (claims.iat > now + this.#toleranceSec) throw fail('malformed', 'issued in the future');
    if (now >= claims.exp) {
      const err = fail('expired', 'token expired');
      EXPIRED_CLAIMS.set(err, claims);
      throw err;
    }
    return claims;
  }
}

// The verified claims of an `expired` refusal, beside the error rather than on
// it: the error is public, and its shape (reason, message, tokenId) stays that.
const EXPIRED_CLAIMS = new WeakMap<AuthenticationError, TokenClaims>();

/**
 * The claims of a token that {@link TokenVerifier} refused as `expired`: its
 * signature, issuer and claims all verified, only its time had passed.
 * `undefined` for any other error. Internal (the service reports the id of an
 * expired token still in use).
 *
 * @example
 * ```ts
 * try { await verifier.verify(token, nowSec); }
 * catch (err) { expiredClaimsOf(err)?.jti; } // the id of an expired token
 * ```
 */
export function expiredClaimsOf(err: unknown): TokenClaims | undefined {
  return err instanceof AuthenticationError ? EXPIRED_CLAIMS.get(err) : undefined;
}

/** The claims jose verified before it found them expired, else `undefined`. */
function expiredPayload(err: unknown): unknown {
  const e = err as { code?: unknown; claim?: unknown; payload?: unknown } | null;
  if (typeof e !== 'object' || e === null || e.code !== 'ERR_JWT_EXPIRED' || e.claim !== 'exp') return undefined;
  return typeof e.payload === 'object' && e.payload !== null ? e.payload : undefined;
}

function fail(reason: AuthenticationReason, message: string, cause?: unknown): AuthenticationError {
  return new AuthenticationError(reason, `authentication failed: ${message}`, cause === undefined ? undefined : { cause });
}

const B64U = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Base64url decoders ignore the unused low bits of the last character, so one
 * signature has several spellings. Refusing all but the canonical one means a token
 * has exactly one text, and a changed character is always a different token.
 */
function hasCanonicalTail(token: string): boolean {
  const sigLen = token.length - token.lastIndexOf('.') - 1;
  if (sigLen === 0) return true;
  const last = B64U.indexOf(token.charAt(token.length - 1));
  switch (sigLen % 4) {
    case 0:
      return true;
    case 2:
      return (last & 0b1111) === 0;
    case 3:
      return (last & 0b11) === 0;
    default:
      return false;
  }
}

function decodeHeader(segment: string): { typ: string; alg: string; kid: string } {
  let header: unknown;
  try {
    header = JSON.parse(strictUtf8.decode(base64url.decode(segment)));
  } catch (cause) {
    throw fail('malformed', 'header is not base64url JSON', cause);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw fail('malformed', 'header is not a JSON object');
  const rec = header as Record<string, unknown>;
  const { typ, alg, kid } = rec;
  if (typeof typ !== 'string' || !KIND_BY_TYPE.has(typ)) throw fail('type', 'not an svc-auth token type');
  if (typeof alg !== 'string' || !ALGORITHMS.has(alg)) throw fail('signature', 'algorithm not accepted');
  const names = Object.keys(rec);
  if (names.length !== HEADER_NAMES.size || names.some((n) => !HEADER_NAMES.has(n)))
    throw fail('malformed', 'header must hold exactly typ, alg and kid');
  if (typeof kid !== 'string' || !KID_PATTERN.test(kid)) throw fail('signature', 'unusable key id');
  return { typ, alg, kid };
}

/** jose's error classes -> our reasons; anything unexpected fails closed as malformed. */
function fromJose(err: unknown): AuthenticationError {
  const e = err as { code?: unknown; claim?: unknown; reason?: unknown };
  switch (e?.code) {
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return fail('signature', 'signature not valid', err);
    case 'ERR_JWT_EXPIRED':
      return fail('expired', 'token expired', err);
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (e.claim === 'iss' && e.reason === 'check_failed') return fail('signature', 'issued by someone else', err);
      return fail('malformed', 'claims are not well formed', err);
    default:
      return fail('malformed', 'token is not well formed', err);
  }
}
