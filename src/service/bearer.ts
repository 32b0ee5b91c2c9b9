/**
 * Bearer credentials out of an `Authorization` header (rule H1, RFC 6750).
 *
 * Lives in the service layer because `auth.authenticateRequest` uses it; it
 * must not import from the HTTP layer above. Every failure is an
 * {@link AuthenticationError}; no message ever quotes the header, since it
 * may hold a real token.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { AuthenticationError } from '../errors';
import { MAX_TOKEN_CHARS } from '../tokens';

/** Longest token accepted, in characters: the one 8 KiB cap of token verification (T1, H1). */
export const MAX_BEARER_TOKEN_LENGTH = MAX_TOKEN_CHARS;

// Longest header value worth looking at: the scheme, one space and the longest
// token. A little slack would not help anyone and would let longer input in.
const MAX_HEADER_LENGTH = 'Bearer '.length + MAX_BEARER_TOKEN_LENGTH;

// RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token. The scheme is
// case-insensitive (RFC 9110 §11.1); b64token is token68. Several spaces are
// legal between scheme and token; a tab or anything after the token is not.
// Linear: no two quantifiers can match the same character.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

// RFC 9110 §5.5: leading and trailing OWS (SP / HTAB) is not part of a field
// value. Node and fetch strip it already; a raw string from elsewhere may not.
const OWS_EDGES = /^[ \t]+|[ \t]+$/g;

function missing(): AuthenticationError {
  return new AuthenticationError('missing', 'no bearer credential was sent');
}

function malformed(why: string): AuthenticationError {
  return new AuthenticationError('malformed', `the Authorization header is not a valid bearer credential: ${why}`);
}

/**
 * Extracts the token from an `Authorization` header value (H1).
 *
 * Accepts `Bearer <token>` with the scheme in any case, one or more spaces,
 * and one RFC 6750 token68 token of at most 8 KiB. The length is checked
 * before anything else, so a huge header costs nothing to refuse. A header
 * array (node's shape for a repeated header) of exactly one value is read as
 * that value.
 *
 * @param value - the header value: a string, `undefined`/`null` when absent, or an array of values.
 * @returns the token text.
 * @throws AuthenticationError reason `missing` when the header is absent or blank;
 *   reason `malformed` for anything else that is not one Bearer token (another
 *   scheme, two tokens, characters outside token68, a repeated header, a non-string).
 *
 * @example
 * ```ts
 * import { parseAuthorization } from 'svc-auth';
 * parseAuthorization('Bearer eyJhbGciOi.x.y'); // 'eyJhbGciOi.x.y'
 * parseAuthorization('bearer abc');            // 'abc'
 * parseAuthorization('Basic dXNlcjpwYXNz');    // throws AuthenticationError (reason 'malformed')
 * parseAuthorization(undefined);               // throws AuthenticationError (reason 'missing')
 * ```
 */
export function parseAuthorization(value: unknown): string {
  try {
    return parseValue(value);
  } catch (err) {
    throw asAuthenticationError(err);
  }
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
  const trimmed = value.replace(OWS_EDGES, '');
  if (trimmed === '') throw missing();
  const match = BEARER.exec(trimmed);
  if (match === null || match[1] === undefined) {
    throw malformed('expected "Bearer" followed by one token');
  }
  return match[1];
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
 * Never throws anything but {@link AuthenticationError}: an object that is not
 * a request, or whose getters throw, is `malformed`.
 *
 * @param req - a fetch `Request` (or anything with `headers.get`) or a node `IncomingMessage`.
 * @returns the token text.
 * @throws AuthenticationError reason `missing` or `malformed`, as {@link parseAuthorization}.
 *
 * @example
 * ```ts
 * import { bearerFromRequest } from 'svc-auth';
 * const req = new Request('https://svc.example/api/whoami', { headers: { authorization: 'Bearer abc' } });
 * bearerFromRequest(req); // 'abc'
 * ```
 */
export function bearerFromRequest(req: Request | IncomingMessage): string {
  try {
    return parseValue(readHeader(req));
  } catch (err) {
    throw asAuthenticationError(err);
  }
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
