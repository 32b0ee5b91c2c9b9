/**
 * The answers of the leak endpoints, built once as data and then written to
 * a node `ServerResponse` or made a fetch `Response`. Every refusal has the
 * H2 body (`{ error, message, reason?, issues? }`): a `ValidationError`'s
 * issues go through `errorAnswer`, which scrubs and caps them like every other
 * answer of the library. No answer carries a stack or a token value.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import { errorAnswer, JSON_HEADERS, type Answer } from '../http';

/** @internal a JSON answer. */
export function json(status: number, body: unknown, extra?: Record<string, string>): Answer {
  return { status, headers: { ...JSON_HEADERS, ...extra }, body };
}

/** @internal a `ValidationError` answer (H2 body with `issues`), at `status` (400, or 405, 413, 415). */
export function invalid(issues: IssueInput[], status = 400, extra?: Record<string, string>): Answer {
  const made = errorAnswer(new ValidationError(issues));
  return { status, headers: { ...made.headers, ...extra }, body: made.body };
}

/** @internal 405: the endpoints take POST only. */
export function postOnly(): Answer {
  return invalid([{ code: 'invalid_value', path: 'method', message: 'use POST' }], 405, { allow: 'POST' });
}

/** @internal 413: the body is over the cap. Sent with `Connection: close` by the node form (the rest is never read). */
export function tooLarge(max: number): Answer {
  return invalid([{ code: 'too_big', path: 'body', message: `is larger than ${max} bytes` }], 413);
}

/**
 * @internal 403 for a request whose signature does not hold. Not a 401: that
 * status needs a `WWW-Authenticate` challenge (RFC 9110), and a webhook
 * signature is no HTTP authentication scheme a client could answer.
 */
export function unsigned(message: string): Answer {
  return json(403, { error: 'forbidden', message, reason: 'signature' });
}

/** @internal 429 with the seconds to wait. Typed as `unavailable`: nothing is wrong with the request itself. */
export function rateLimited(retryAfterSec: number): Answer {
  return json(
    429,
    { error: 'unavailable', message: 'too many requests from this address: retry later', reason: 'rate_limited' },
    { 'retry-after': String(retryAfterSec) },
  );
}

/** @internal 503: a dependency (the token store, GitHub's keys) failed, or cannot answer yet. Never an accept. */
export function unavailable(message: string, retryAfterSec = 1): Answer {
  return json(503, { error: 'unavailable', message }, { 'retry-after': String(retryAfterSec) });
}

/** @internal 500: something nobody expected; the client learns nothing of it. */
export function internal(): Answer {
  return json(500, { error: 'internal', message: 'internal error' });
}
