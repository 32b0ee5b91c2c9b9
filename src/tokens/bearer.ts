/**
 * Bearer credentials out of an `Authorization` header (rule H1, RFC 6750).
 *
 * Syntax only, so it sits in the tokens layer (4), beneath both of its users:
 * `auth.authenticateRequest` (service, 6) reads the header with it, and the
 * HTTP layer (7) asks it, not the service, whether a refusal was about the
 * header itself ({@link isHeaderProblem}). An import never points up a layer.
 * Every failure is an {@link AuthenticationError}; no message ever quotes the
 * header, since it may hold a real token.
 * @module
 */
import { AuthenticationError } from '../errors';
import { MAX_TOKEN_CHARS } from './verify';
import { DPOP_SCHEME, hasDpopScheme, isDpopValue, readNamed, type DpopCredential } from './dpop';

/**
 * A request as svc-auth reads it: a fetch `Request`, or anything shaped like a
 * node `IncomingMessage` (node:http, Express, Fastify's `request.raw`).
 * Structural rather than node's own type, so that the declarations of entries
 * that never touch node:http (svc-auth/hono, the fetch guard) need no
 * `@types/node`.
 *
 * @example
 * ```ts
 * const fromNode: BearerRequest = { headers: { authorization: 'Bearer abc' }, rawHeaders: ['Authorization', 'Bearer abc'] };
 * const fromFetch: BearerRequest = new Request('https://svc.example/', { headers: { authorization: 'Bearer abc' } });
 * ```
 */
export type BearerRequest = Request | NodeLikeRequest;

/**
 * The part of a node `IncomingMessage` that svc-auth reads: its headers, and
 * `rawHeaders` to see a header sent twice (node keeps only the first copy).
 *
 * @example
 * ```ts
 * const req: NodeLikeRequest = { headers: { authorization: 'Bearer abc' } };
 * ```
 */
export interface NodeLikeRequest {
  /** Header values by lowercase name, as node parses them (the first copy of a repeated `Authorization`). */
  readonly headers: { readonly [name: string]: string | string[] | undefined };
  /** Names and values in the order received, alternating; read to refuse an `Authorization` header sent twice. */
  readonly rawHeaders?: readonly string[];
}

/** Longest token accepted, in characters: the one 8 KiB cap of token verification (T1, H1). */
export const MAX_BEARER_TOKEN_LENGTH = MAX_TOKEN_CHARS;

// Longest header value worth looking at: the scheme, one space and the longest
// token. A little slack would not help anyone and would let longer input in.
const MAX_HEADER_LENGTH = 'Bearer '.length + MAX_BEARER_TOKEN_LENGTH;

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token, scheme case-insensitive
// (RFC 9110 §11.1), b64token = token68. RFC 9110 §5.5: leading and trailing OWS
// (SP / HTAB) is not part of a field value; node and fetch strip it already, a
// raw string from elsewhere may not. The header comes from the network, so it
// is read in one forward pass: the cost is linear in its length by
// construction (a trim regex such as /^[ \t]+|[ \t]+$/g retries at every
// space of `Bearer a<8,000 spaces>b`, which is quadratic). The one regular
// expression below is a single sticky character class, which cannot retry.

const SPACE = 0x20;
const TAB = 0x09;
const EQUALS = 0x3d;
const SCHEME = 'bearer';

function isOws(c: number): boolean {
  return c === SPACE || c === TAB;
}

// token68 minus the trailing '=' padding: ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/".
// One sticky character class with nothing after it: it takes the longest run
// from lastIndex and never backtracks (linear), and the engine's compiled class
// test is several times faster than a charCodeAt loop over a 300-character JWT.
const TOKEN68_RUN = /[A-Za-z0-9\-._~+/]*/y;

function hasScheme(value: string, at: number): boolean {
  for (let k = 0; k < SCHEME.length; k++) {
    // ASCII letters only: setting bit 0x20 lowercases A-Z and leaves a-z as they are.
    if ((value.charCodeAt(at + k) | 0x20) !== SCHEME.charCodeAt(k)) return false;
  }
  return true;
}

// Marks refusals about the header itself (another scheme, two tokens, bad
// characters), as opposed to a well-formed header whose token is bad. The
// HTTP layer words the two differently; both stay reason 'malformed'.
const HEADER_PROBLEMS = new WeakSet<AuthenticationError>();

/**
 * True when `err` refused the `Authorization` header itself rather than the
 * token it carried.
 *
 * @example
 * ```ts
 * try { bearerFromRequest({ headers: { authorization: 'Basic x' } }); } catch (err) { isHeaderProblem(err); } // true
 * ```
 */
export function isHeaderProblem(err: unknown): boolean {
  return err instanceof AuthenticationError && HEADER_PROBLEMS.has(err);
}

function missing(): AuthenticationError {
  return new AuthenticationError('missing', 'no bearer credential was sent');
}

function malformed(why: string): AuthenticationError {
  const err = new AuthenticationError('malformed', `the Authorization header is not a valid bearer credential: ${why}`);
  HEADER_PROBLEMS.add(err);
  return err;
}

function parseValue(value: unknown): string {
  if (value === undefined || value === null) throw missing();
  if (Array.isArray(value)) {
    if (value.length === 0) throw missing();
    if (value.length > 1) throw malformed('the header was sent more than once');
    value = value[0];
    if (value === undefined || value === null) throw missing();
  }
  if (typeof value !== 'string') throw malformed('the header value is not text');
  if (value.length > MAX_HEADER_LENGTH) throw malformed('the credential is longer than 8 KiB');
  return scan(value);
}

const SHAPE = 'expected "Bearer" followed by one token';

/**
 * One forward pass over a string of at most MAX_HEADER_LENGTH characters: the
 * scheme, the spaces after it, and the rest as the token. The token's own
 * characters are checked by {@link checkToken68} (at once by the public
 * readers; by `authenticateRequest` only when the token is not one it verified
 * before, see {@link bearerTextFromRequest}).
 */
function span(value: string, dpop = false): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  if (start === end) throw missing();
  const length = dpop ? DPOP_SCHEME.length : SCHEME.length;
  if (end - start <= length || !(dpop ? hasDpopScheme(value, start) : hasScheme(value, start))) throw malformed(SHAPE);
  let i = start + length;
  if (value.charCodeAt(i) !== SPACE) throw malformed(SHAPE);
  while (i < end && value.charCodeAt(i) === SPACE) i++;
  if (i === end) throw malformed(SHAPE);
  return value.slice(i, end);
}

/** The token must be one token68: its characters, then only '=' padding to its end. Linear, never backtracks. */
function checkToken68(token: string): string {
  TOKEN68_RUN.lastIndex = 0;
  TOKEN68_RUN.test(token);
  let i = TOKEN68_RUN.lastIndex;
  if (i === 0) throw malformed(SHAPE);
  while (i < token.length && token.charCodeAt(i) === EQUALS) i++;
  if (i !== token.length) throw malformed(SHAPE);
  return token;
}

function scan(value: string): string {
  return checkToken68(span(value));
}

// A hostile or broken object (throwing getter, proxy trap) must never let its
// error, or its message, escape as anything but a refusal.
function asAuthenticationError(err: unknown): AuthenticationError {
  return err instanceof AuthenticationError ? err : malformed('the header could not be read');
}

/**
 * Reads the bearer token of a fetch `Request` or a node `IncomingMessage`
 * (H1). On node, a header sent twice is refused even though node itself keeps
 * only the first copy: `rawHeaders` still shows both.
 *
 * Accepts `Bearer <token>` with the scheme in any case, one or more spaces,
 * and one RFC 6750 token68 token of at most 8 KiB. The length is checked
 * before anything else, so a huge header costs nothing to refuse. A header
 * array (node's shape for a repeated header) of exactly one value is read as
 * that value.
 *
 * Never throws anything but {@link AuthenticationError}: an object that is not
 * a request, or whose getters throw, is `malformed`.
 *
 * @param req - a fetch `Request` (or anything with `headers.get`) or a node `IncomingMessage`.
 * @returns the token text.
 * @throws AuthenticationError reason `missing` when the header is absent or blank;
 *   reason `malformed` for anything else that is not one Bearer token (another
 *   scheme, two tokens, characters outside token68, a repeated header, a non-string).
 *
 * @example
 * ```ts
 * import { bearerFromRequest } from 'svc-auth';
 * const req = new Request('https://svc.example/api/whoami', { headers: { authorization: 'Bearer abc' } });
 * bearerFromRequest(req); // 'abc'
 * ```
 */
export function bearerFromRequest(req: BearerRequest): string {
  try {
    return parseValue(readHeader(req));
  } catch (err) {
    throw asAuthenticationError(err);
  }
}

/**
 * @internal {@link bearerFromRequest} without the check of the token's own
 * characters, for `auth.authenticateRequest`: a token that is, character for
 * character, one the verifier accepted before (its cache compares the whole
 * text) holds only base64url characters and dots, so it would pass that check;
 * any other token must go through {@link checkBearerText} before it is read
 * further. That check was the largest single cost of a guarded request's
 * header reading (a class scan over 300 characters).
 *
 * @example
 * ```ts
 * const token = bearerTextFromRequest(req);
 * const claims = verifier.verifyCached(token, nowSec) ?? (checkBearerText(token), await verifier.verify(token, nowSec));
 * ```
 */
export function bearerTextFromRequest(req: BearerRequest): string | DpopCredential {
  try {
    const value = readHeader(req);
    if (typeof value === 'string' && value.length <= MAX_HEADER_LENGTH) {
      // A Bearer header allocates nothing; only a DPoP one builds its pair.
      if (!isDpopValue(value)) return span(value);
      return { token: span(value, true), proof: readNamed(req, 'dpop') };
    }
    return parseValue(value);
  } catch (err) {
    throw asAuthenticationError(err);
  }
}

/**
 * @internal The access token of a request that `auth.authenticateRequest` accepted, under either
 * scheme (`Bearer` or `DPoP`): for what hands the token on (the MCP SDK's `AuthInfo`).
 *
 * @example
 * ```ts
 * accessTokenFromRequest(new Request('https://svc.example/', { headers: { authorization: 'DPoP abc' } })); // 'abc'
 * ```
 */
export function accessTokenFromRequest(req: BearerRequest): string {
  const got = bearerTextFromRequest(req);
  return checkToken68(typeof got === 'string' ? got : got.token);
}

/**
 * @internal The check {@link bearerTextFromRequest} left out: throws the same
 * `AuthenticationError` (reason `malformed`, a header problem) that
 * {@link bearerFromRequest} throws for a token that is not one token68.
 *
 * @example
 * ```ts
 * checkBearerText('abc def'); // throws AuthenticationError (reason 'malformed')
 * ```
 */
export function checkBearerText(token: string): void {
  checkToken68(token);
}

function readHeader(req: unknown): unknown {
  if (typeof req !== 'object' || req === null) throw malformed('not a request');
  const headers: unknown = (req as { headers?: unknown }).headers;
  if (typeof headers !== 'object' || headers === null) throw malformed('the request has no headers');
  const get: unknown = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    // fetch Headers join a repeated header with ", ", which the token68 check refuses.
    return get.call(headers, 'authorization');
  }
  const raw: unknown = (req as { rawHeaders?: unknown }).rawHeaders;
  if (Array.isArray(raw) && countAuthorization(raw) > 1) {
    throw malformed('the header was sent more than once');
  }
  return (headers as { authorization?: unknown }).authorization;
}

// rawHeaders is [name, value, name, value, ...] with names as sent.
function countAuthorization(raw: readonly unknown[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (typeof name === 'string' && name.length === 13 && name.toLowerCase() === 'authorization') count++;
  }
  return count;
}
