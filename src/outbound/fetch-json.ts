/**
 * The one outbound JSON request (rule N4): every read from another party's server (an
 * IdP's discovery document and keys, GitHub's secret scanning keys, the CLI's
 * authorization server) goes through here, so each has the same bounds. The
 * URL follows the service-URL rule; one deadline covers the answer's body too;
 * the body is cut at a size cap; a redirect is refused, always the same way
 * (`redirect: 'manual'`, then any 3xx is an error: a URL someone configured must
 * not lead to a host nobody did). Errors name what was fetched and where,
 * never the answer's text: it is someone else's, and may quote a secret.
 * @module
 */
import { UnavailableError } from '../errors';
import { serviceUrl } from '../core/network';

/** Default deadline of one request, answer included, in milliseconds. */
export const FETCH_TIMEOUT_MS = 5_000;
/** Default cap on an answer, in bytes: discovery documents and key sets are a few KiB. */
export const FETCH_MAX_BYTES = 128 * 1024;

/**
 * Options of {@link fetchJson}.
 *
 * @example
 * ```ts
 * const options: FetchJsonOptions = { what: "GitHub's secret scanning keys", timeoutMs: 5_000, maxBytes: 64 * 1024 };
 * ```
 */
export interface FetchJsonOptions {
  /** What is fetched, named in every error (`the token endpoint`, `identity provider keys`). */
  readonly what: string;
  /** Sent as a POST body (`application/x-www-form-urlencoded`); a GET without it. */
  readonly form?: URLSearchParams;
  /** Request headers. Default `accept: application/json`. */
  readonly headers?: Headers | Readonly<Record<string, string>>;
  /** The deadline, in ms. Default {@link FETCH_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** The largest answer read, in bytes. Default {@link FETCH_MAX_BYTES}. */
  readonly maxBytes?: number;
  /** Also ends the request (the deadline still holds). */
  readonly signal?: AbortSignal;
  /** The `fetch` used. Default: the global one. */
  readonly fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /**
   * Return any non-redirect status with its body (`undefined` when not JSON), for a caller
   * that reads error answers (OAuth's `{ "error": ... }`). Default `false`: anything but a
   * 200 with a JSON body is an `UnavailableError`.
   */
  readonly anyStatus?: boolean;
}

/**
 * An answer of {@link fetchJson}: its status and its parsed JSON (`undefined` when it was
 * not JSON, which happens only with `anyStatus`).
 *
 * @example
 * ```ts
 * const answer: JsonAnswer = { status: 200, body: { keys: [] } };
 * ```
 */
export interface JsonAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Fetch JSON from `url` within bounds. Throws `UnavailableError` naming `what`
 * and the URL (origin and path) when the URL breaks the service-URL rule, the
 * server cannot be reached, redirects, takes longer than the deadline, sends
 * more than the cap, or (without `anyStatus`) answers anything but 200 JSON.
 *
 * @example
 * ```ts
 * const { body } = await fetchJson('https://idp.example/.well-known/openid-configuration', { what: 'identity provider metadata' });
 * ```
 */
export async function fetchJson(url: URL | string, options: FetchJsonOptions): Promise<JsonAnswer> {
  const { what, form } = options;
  const checked = serviceUrl(url);
  if (typeof checked === 'string') throw new UnavailableError(`${what} is at a URL that is not used: it ${checked}`);
  const where = `${checked.origin}${checked.pathname}`;
  const fail = (text: string, cause?: unknown): UnavailableError =>
    new UnavailableError(`${what} ${text} (${where})`, cause === undefined ? undefined : { cause });
  const deadline = AbortSignal.timeout(options.timeoutMs ?? FETCH_TIMEOUT_MS);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
  const headers = new Headers(options.headers ?? { accept: 'application/json' });
  if (form !== undefined) headers.set('content-type', 'application/x-www-form-urlencoded');
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(checked.href, {
      method: form === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers,
      ...(form === undefined ? {} : { body: form.toString() }),
      signal,
    });
  } catch (cause) {
    throw fail('could not be reached', cause);
  }
  // `redirected`: a `fetch` option that follows redirects anyway is refused the same way.
  if ((res.status >= 300 && res.status < 400) || res.redirected) {
    await res.body?.cancel().catch(() => undefined);
    throw fail('answered with a redirect; it is not followed');
  }
  if (options.anyStatus !== true && res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw fail(`answered ${res.status}`);
  }
  const bytes = await readCapped(res, options.maxBytes ?? FETCH_MAX_BYTES, fail);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    if (options.anyStatus !== true) throw fail('sent no JSON', cause);
    body = undefined;
  }
  return { status: res.status, body };
}

async function readCapped(res: Response, max: number, fail: (text: string, cause?: unknown) => UnavailableError): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (declared > max) {
    await reader?.cancel().catch(() => undefined);
    throw fail(`sent more than ${max} bytes`);
  }
  if (reader === undefined) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) {
        await reader.cancel().catch(() => undefined);
        throw fail(`sent more than ${max} bytes`);
      }
      parts.push(value);
    }
  } catch (cause) {
    if (cause instanceof UnavailableError) throw cause;
    throw fail('did not finish its answer', cause);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
