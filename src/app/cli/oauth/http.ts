/**
 * The one way the CLI talks to an authorization server: the library's bounded
 * outbound fetch (a deadline, no redirects, a cap on the answer's size, the
 * service-URL rule). The server URL comes from a flag, an environment variable
 * or a file, so it is treated as hostile: whatever it sends cannot hold the CLI
 * or its memory for long, and no answer's text is ever printed (it could quote
 * a token, or carry terminal escapes).
 * @module
 */
import { fetchJson } from '../../../outbound';

/** Largest answer read, in bytes: metadata and token answers are a few KiB. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** Milliseconds one request may take, answer included. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** One answer: its HTTP status and its JSON body (`undefined` when the body was not a JSON object). */
export interface JsonAnswer {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
}

/**
 * Send `form` (POST, `application/x-www-form-urlencoded`) or GET `url`, and read a
 * JSON object answer of at most {@link MAX_ANSWER_BYTES}. Throws `UnavailableError`
 * naming `what` (never the answer) when the server cannot be reached, redirects,
 * takes too long or sends too much; an answer that is not a JSON object has `body`
 * `undefined`, for the caller to refuse in its own words.
 *
 * @example
 * ```ts
 * const { status, body } = await requestJson('http://127.0.0.1:8080/.well-known/oauth-authorization-server', 'the server metadata');
 * ```
 */
export async function requestJson(url: string, what: string, form?: URLSearchParams): Promise<JsonAnswer> {
  const answer = await fetchJson(url, {
    what,
    ...(form === undefined ? {} : { form }),
    timeoutMs: REQUEST_TIMEOUT_MS,
    maxBytes: MAX_ANSWER_BYTES,
    anyStatus: true,
  });
  const body = answer.body;
  const object = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  return { status: answer.status, body: object };
}
