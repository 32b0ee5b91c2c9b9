/**
 * The one way this library reads from an identity provider: a GET with a deadline,
 * no redirects, and a cap on the body. Discovery documents and key sets come from
 * another party's server; what it sends must not be able to hold a request, or
 * memory, for long.
 * @module
 */
import { UnavailableError } from '../../errors';

/** Longest discovery document or key set read, in bytes (the largest real ones are a few KiB). */
export const MAX_BODY_BYTES = 128 * 1024;
/** Milliseconds one fetch may take, body included. */
export const FETCH_TIMEOUT_MS = 5_000;

/**
 * @internal GET `url` and return its JSON body. Anything but a 200 with a JSON body of
 * at most {@link MAX_BODY_BYTES}, within {@link FETCH_TIMEOUT_MS} (or `signal`), is an
 * `UnavailableError` naming the URL (never a body: it is someone else's text). Redirects
 * are not followed: an IdP's metadata and keys live where it says, and following one
 * could lead the service to a host nobody configured.
 *
 * @example
 * ```ts
 * const doc = await fetchJson(new URL('https://idp.example/.well-known/openid-configuration'));
 * ```
 */
export async function fetchJson(url: URL | string, init: { headers?: Headers; signal?: AbortSignal } = {}): Promise<unknown> {
  const where = typeof url === 'string' ? url : url.href;
  const signal = init.signal ?? AbortSignal.timeout(FETCH_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(where, { method: 'GET', redirect: 'manual', headers: init.headers ?? { accept: 'application/json' }, signal });
  } catch (cause) {
    throw new UnavailableError(`identity provider not reachable: ${where}`, { cause });
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw new UnavailableError(`identity provider answered ${res.status} for ${where}`);
  }
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw new UnavailableError(`identity provider sent more than ${MAX_BODY_BYTES} bytes from ${where}`);
  }
  const bytes = await readCapped(res, where);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch (cause) {
    throw new UnavailableError(`identity provider sent no JSON from ${where}`, { cause });
  }
}

async function readCapped(res: Response, where: string): Promise<Uint8Array> {
  const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (reader === undefined) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => undefined);
        throw new UnavailableError(`identity provider sent more than ${MAX_BODY_BYTES} bytes from ${where}`);
      }
      parts.push(value);
    }
  } catch (cause) {
    if (cause instanceof UnavailableError) throw cause;
    throw new UnavailableError(`identity provider did not finish its answer: ${where}`, { cause });
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
