/**
 * The one way the CLI talks to an authorization server: a request with a
 * deadline, no redirects, and a cap on the answer's size. The server URL comes
 * from a flag, an environment variable or a file, so it is treated as hostile:
 * whatever it sends cannot hold the CLI or its memory for long, and no answer's
 * text is ever printed (it could quote a token, or carry terminal escapes).
 * @module
 */
import { UnavailableError } from '../../../errors';
import { readFetchBytes } from '../../../http';

/** Largest answer read, in bytes: metadata and token answers are a few KiB. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** Milliseconds one request may take, answer included. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** One answer: its HTTP status and its JSON body (`undefined` when the body was not JSON). */
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
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, {
      method: form === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers:
        form === undefined
          ? { accept: 'application/json' }
          : { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      ...(form === undefined ? {} : { body: form.toString() }),
      signal,
    });
  } catch (cause) {
    throw new UnavailableError(`${what} could not be reached (${originOf(url)})`, { cause });
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => undefined);
    throw new UnavailableError(`${what} answered with a redirect (${originOf(url)}); it is not followed`);
  }
  const bytes = await readCapped(res, what, url);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    body = undefined;
  }
  const object = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  return { status: res.status, body: object };
}

function originOf(url: string): string {
  return URL.parse(url)?.origin ?? 'an invalid URL';
}

/** The answer's body, at most {@link MAX_ANSWER_BYTES}: the same bounded reader as the handlers' request bodies. */
async function readCapped(res: Response, what: string, url: string): Promise<Uint8Array> {
  let read;
  try {
    read = await readFetchBytes(res, MAX_ANSWER_BYTES);
  } catch (cause) {
    throw new UnavailableError(`${what} did not finish its answer (${originOf(url)})`, { cause });
  }
  if (read.tooLarge) {
    // A declared length over the cap is refused before any byte is read: drop the connection's body too.
    await res.body?.cancel().catch(() => undefined);
    throw new UnavailableError(`${what} sent more than ${MAX_ANSWER_BYTES} bytes (${originOf(url)})`);
  }
  return read.bytes;
}
