/**
 * The check of a DPoP proof at a resource (RFC 9449 §4.3), in the RFC's order:
 * one `DPoP` header; `typ` `dpop+jwt`; an asymmetric algorithm of
 * {@link DPOP_ALGORITHMS}; a public `jwk` only; the signature by that key;
 * `htm` and `htu` against the request; the resource's `nonce` when it hands
 * out nonces (reason `dpop_nonce`, carrying the one to use); `iat` within the window; `ath` equal to
 * the hash of the access token; the key's thumbprint equal to the token's
 * `cnf.jkt`. The `jti` is handed back, not remembered: using it once is the
 * replay cache's job (its caller's), so this module stays free of state and
 * I/O, and the same check serves any token whose record names a key (a bound
 * PAT, issue 32 §2). Every other refusal is an `AuthenticationError` of reason
 * `dpop`; no message quotes the proof or the token.
 * @module
 */
import { decodeProtectedHeader } from 'jose';
import { AuthenticationError } from '../../errors';
import { hasPrivateMember } from './jwk';
import { tokenHash, verifyProofSignature, type ProofHeader } from './signature';
import type { DpopNonces } from './nonce';

/**
 * The proof algorithms accepted, in the order advertised: asymmetric only (RFC 9449 §4.3 check 5;
 * `none` and HMAC are refused before any key is read). EdDSA (Ed25519) and the ECDSA curves P-256 and
 * P-384 first; RSA (PSS and PKCS#1 v1.5) for clients that hold only RSA keys.
 *
 * @example
 * ```ts
 * import { DPOP_ALGORITHMS } from 'svc-auth';
 * DPOP_ALGORITHMS.includes('ES256'); // true
 * ```
 */
export const DPOP_ALGORITHMS = Object.freeze(['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'] as const);

/** Longest `DPoP` header, in characters: a proof with an RSA-4096 key fits well inside. */
export const MAX_PROOF_CHARS = 8192;
const MAX_JTI = 256;
const MAX_HTM = 32;
const MAX_HTU = 4096;
const KEY_TYPES = new Set(['OKP', 'EC', 'RSA']);
const ALGS: ReadonlySet<string> = new Set(DPOP_ALGORITHMS);

/** @internal what a proof is checked against. */
export interface ProofContext {
  /** The request's method, as received (upper case by convention; compared exactly, RFC 9110 §9.1). */
  readonly method: string;
  /** The request's absolute URL as the server is reached (query and fragment are ignored); a parsed one is not parsed again. */
  readonly url: string | URL;
  /** The access token the request carries (its hash must be the proof's `ath`). */
  readonly token: string;
  /**
   * The thumbprint the token is bound to (`cnf.jkt`, RFC 7638 SHA-256, base64url), or `null` when it is not
   * known yet (a PAT's key is in its record): the caller then compares {@link CheckedProof.thumbprint} itself.
   */
  readonly jkt: string | null;
  /** Now, in whole seconds since the epoch. */
  readonly nowSec: number;
  /** How old a proof may be, in seconds (its `iat` no earlier than now minus this). */
  readonly windowSec: number;
  /** How far in the future `iat` may be, in seconds (clock skew). */
  readonly toleranceSec: number;
  /** The resource's nonces, when a proof must carry one (RFC 9449 §9); absent or `null` when it need not. */
  readonly nonces?: DpopNonces | null;
}

/** @internal a checked proof: its `jti`, and until when it must be remembered to be refused again. */
export interface CheckedProof {
  readonly jti: string;
  /** The thumbprint of the key that signed the proof. */
  readonly thumbprint: string;
  /** When the proof falls out of the window, milliseconds since the epoch. */
  readonly expiresAtMs: number;
}

function fail(message: string): AuthenticationError {
  return new AuthenticationError('dpop', `invalid DPoP proof: ${message}`);
}

/**
 * @internal The one proof a request carries: a `DPoP` header sent once, as text of at most
 * {@link MAX_PROOF_CHARS}. A fetch `Headers` joins a repeated header with `, `, which no compact
 * JWS holds: refused as two headers.
 *
 * @example
 * ```ts
 * const proof = proofText(req.headers['dpop']); // throws AuthenticationError 'dpop' when absent or sent twice
 * ```
 */
export function proofText(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length !== 1) throw fail(value.length === 0 ? 'no DPoP header' : 'more than one DPoP header');
    value = value[0];
  }
  if (value === undefined || value === null || value === '') throw fail('no DPoP header');
  if (typeof value !== 'string') throw fail('the DPoP header is not text');
  if (value.length > MAX_PROOF_CHARS) throw fail('the DPoP header is longer than 8 KiB');
  if (value.includes(',')) throw fail('more than one DPoP header');
  return value;
}

/** htu and the request URL, each without query and fragment, normalized as RFC 3986 §6.2.2-6.2.3 (the URL parser does it). */
function sameTarget(htu: string, url: string | URL): boolean {
  // The same text is the same target (parsing is deterministic); any other text is parsed and compared.
  if (typeof url === 'string' && htu === url) return true;
  const a = URL.parse(htu);
  const b = typeof url === 'string' ? URL.parse(url) : url;
  if (a === null || b === null) return false;
  return a.protocol === b.protocol && a.host === b.host && a.pathname === b.pathname;
}

function checkHeader(proof: string): ProofHeader {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw fail('not a JWT');
  }
  if (header.typ !== 'dpop+jwt') throw fail('typ is not dpop+jwt');
  if (typeof header.alg !== 'string' || !ALGS.has(header.alg)) throw fail('algorithm not accepted');
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw fail('no jwk in the header');
  const key = jwk as Record<string, unknown>;
  if (typeof key.kty !== 'string' || !KEY_TYPES.has(key.kty)) throw fail('the jwk is not an asymmetric public key');
  if (hasPrivateMember(key)) throw fail('the jwk holds a private key');
  return { header, alg: header.alg, jwk: key };
}

function claimsOf(payload: Record<string, unknown>, ctx: ProofContext): { jti: string; iat: number } {
  const { htm, htu, iat, jti } = payload;
  if (typeof htm !== 'string' || htm.length > MAX_HTM || htm !== ctx.method) throw fail('htm is not the request method');
  if (typeof htu !== 'string' || htu.length > MAX_HTU || !sameTarget(htu, ctx.url)) throw fail('htu is not the request URL');
  const nonces = ctx.nonces;
  if (nonces !== undefined && nonces !== null && !nonces.accepts(payload.nonce, ctx.nowSec)) {
    // RFC 9449 §9: not a bad proof but a missing or passed nonce, answered with the one to use.
    const why = payload.nonce === undefined ? 'no nonce' : 'a nonce this resource no longer takes';
    throw new AuthenticationError('dpop_nonce', `DPoP proof with ${why}: sign it again with the DPoP-Nonce given`, {
      dpopNonce: nonces.current(ctx.nowSec),
    });
  }
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw fail('iat is missing');
  if (iat > ctx.nowSec + ctx.toleranceSec) throw fail('iat is in the future');
  if (iat < ctx.nowSec - ctx.windowSec) throw fail('the proof is too old');
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI) throw fail('jti is missing or too long');
  return { jti, iat };
}

/**
 * @internal Check the proof `proof` (the text of {@link proofText}) for a request and its bound
 * token: the proof's `jti`, the thumbprint of its key, and how long to remember it; throws
 * `AuthenticationError` reason `dpop`. Synchronous: one signature check by node:crypto.
 *
 * @example
 * ```ts
 * const { jti, expiresAtMs } = checkProof(proofText(header), { method: 'GET', url, token, jkt, nowSec, windowSec: 300, toleranceSec: 5 });
 * ```
 */
export function checkProof(proof: string, ctx: ProofContext): CheckedProof {
  // By the header's own key (checked once per header text): the binding is checked below, by thumbprint.
  const { payload, thumbprint } = verifyProofSignature(proof, () => checkHeader(proof));
  const { jti, iat } = claimsOf(payload, ctx);
  const ath = payload.ath;
  if (typeof ath !== 'string' || ath !== tokenHash(ctx.token)) throw fail('ath is not the hash of the access token');
  if (ctx.jkt !== null && thumbprint !== ctx.jkt) throw fail('the proof is signed by another key than the token is bound to');
  return { jti, thumbprint, expiresAtMs: (Math.max(iat, ctx.nowSec) + ctx.windowSec + ctx.toleranceSec) * 1000 };
}
