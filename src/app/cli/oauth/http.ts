/**
 * The one way the CLI talks to an authorization server: a request with a
 * deadline, no redirects, and a cap on the answer's size. The server URL comes
 * from a flag, an environment variable or a file, so it is treated as hostile:
 * whatever it sends cannot hold the CLI or its memory for long, and no answer's
 * text is ever printed (it could quote a token, or carry terminal escapes).
 * @module
 */
import { UnavailableError } from '../../../errors';

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

async function readCapped(res: Response, what: string, url: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  const tooMuch = (): UnavailableError => new UnavailableError(`${what} sent more than ${MAX_ANSWER_BYTES} bytes (${originOf(url)})`);
  if (declared > MAX_ANSWER_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw tooMuch();
  }
  const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (reader === undefined) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_ANSWER_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw tooMuch();
      }
      parts.push(value);
    }
  } catch (cause) {
    if (cause instanceof UnavailableError) throw cause;
    throw new UnavailableError(`${what} did not finish its answer (${originOf(url)})`, { cause });
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
