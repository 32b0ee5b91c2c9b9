/**
 * Resource indicators (RFC 8707): which resources tokens are issued for, and
 * one spelling per resource. The MCP SDK names the API at the server's root
 * `<base>/` (a URL's href always has a path) while the API's audience is
 * `<base>`: both are the same resource, so `<resource>/` is rewritten to
 * `<resource>` in every request before oidc-provider reads it (query and
 * form body alike: a code asked for as one and redeemed as the other must
 * still match). On a loopback issuer, `localhost`, `127.0.0.1` and `[::1]`
 * name the same resources too.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { isLoopbackHost } from '../core/network';
import { assertUnread, readNodeBytes } from '../http';

/** A loopback URL's place, whatever loopback name it was written with (`localhost`, `127.0.0.1`, `[::1]`). */
function loopbackPlace(value: string): string | undefined {
  const url = URL.parse(value);
  if (url === null || url.search !== '' || url.hash !== '' || url.username !== '' || !isLoopbackHost(url.hostname)) return undefined;
  return `${url.protocol}//:${url.port}${url.pathname}`;
}

/**
 * @internal The one spelling of `value` when it names a configured resource
 * another way: with a trailing slash (`<resource>/` -> `<resource>`), or, for
 * a resource on a loopback host, with another loopback name
 * (`http://localhost:8080/mcp` -> `http://127.0.0.1:8080/mcp`: a client that
 * was given `localhost` reads the resource's metadata there, and asks for
 * that name); `undefined` when it needs none.
 */
export function canonicalResource(value: string, resources: readonly string[]): string | undefined {
  if (resources.includes(value)) return undefined;
  const bare = value.endsWith('/') ? value.slice(0, -1) : value;
  if (resources.includes(bare)) return bare;
  const place = loopbackPlace(bare);
  return place === undefined ? undefined : resources.find((r) => loopbackPlace(r) === place);
}

/** @internal Rewrite the `resource` values of `params` in place; whether anything changed. */
export function canonicalizeParams(params: URLSearchParams, resources: readonly string[]): boolean {
  const values = params.getAll('resource');
  if (!values.some((v) => canonicalResource(v, resources) !== undefined)) return false;
  params.delete('resource');
  for (const v of values) params.append('resource', canonicalResource(v, resources) ?? v);
  return true;
}

/** @internal `req.url` with its query's `resource` values in their one spelling. */
export function canonicalUrl(url: string, resources: readonly string[]): string {
  const at = url.indexOf('?');
  if (at === -1 || !url.includes('resource=', at)) return url;
  const params = new URLSearchParams(url.slice(at + 1));
  return canonicalizeParams(params, resources) ? `${url.slice(0, at)}?${params.toString()}` : url;
}

/** The largest form body oidc-provider itself reads (56 KiB): a larger one is refused there too. */
const MAX_BODY = 56 * 1024;

/** @internal A request body read whole, or why it could not be. */
export type ReadBody = { status: 'ok'; body: Buffer } | { status: 'too_large' | 'unreadable' };

/** The body each request was last made to read (replayBody): what the next reader here reads too. */
const replayed = new WeakMap<IncomingMessage, Buffer>();

/**
 * @internal Read the body of `req` whole, under `max` bytes (oidc-provider's own limit unless
 * smaller) and the HTTP layer's deadline, by the HTTP layer's one reader. A body replayed here
 * (a framework's `req.body`, or one read before) is read again as it is. A stream a parser read
 * and kept to itself throws (a misconfiguration, answered `server_error`), never an empty body.
 */
export async function readBody(req: IncomingMessage, max = MAX_BODY): Promise<ReadBody> {
  const again = replayed.get(req);
  if (again !== undefined) return again.length > max ? { status: 'too_large' } : { status: 'ok', body: again };
  assertUnread(req);
  // Over, with a `req.body` no form or JSON could be made of: nothing here can read it.
  if (req.readableEnded) return { status: 'unreadable' };
  try {
    const read = await readNodeBytes(req, max);
    return read.tooLarge ? { status: 'too_large' } : { status: 'ok', body: Buffer.from(read.bytes) };
  } catch {
    return { status: 'unreadable' };
  }
}

/**
 * @internal Make `req` read `body` from here on: its stream was consumed, so
 * the request object is made to read from the new body (oidc-provider reads
 * `readable`, `iterator()` and `Content-Length`).
 */
export function replayBody(req: IncomingMessage, body: Buffer): void {
  replayed.set(req, body);
  const replay = Readable.from([body]);
  Object.defineProperty(req, 'readable', { configurable: true, get: () => replay.readable });
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: (options?: { destroyOnReturn?: boolean }) => replay.iterator(options),
  });
  Object.defineProperty(req, Symbol.asyncIterator, { configurable: true, value: () => replay.iterator() });
  delete req.headers['transfer-encoding'];
  req.headers['content-length'] = String(body.length);
}

/** A value of a parsed form body as form fields: strings, numbers and lists of them. */
function formOf(parsed: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(parsed)) {
    for (const one of Array.isArray(v) ? (v as unknown[]) : [v]) {
      if (typeof one === 'string' || typeof one === 'number' || typeof one === 'boolean') params.append(k, String(one));
    }
  }
  return params;
}

/**
 * @internal A body that a framework's parser (`express.urlencoded()`,
 * `express.json()`, ...) already read is written back from `req.body`, so that
 * every route reads it as if no parser had run before the mount.
 */
export function restoreParsedBody(req: IncomingMessage): void {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed === undefined || parsed === null || !req.readableEnded) return;
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  let body: Buffer | undefined;
  if (Buffer.isBuffer(parsed)) body = parsed;
  else if (typeof parsed === 'string') body = Buffer.from(parsed);
  else if (typeof parsed === 'object' && type.startsWith('application/x-www-form-urlencoded'))
    body = Buffer.from(formOf(parsed as Record<string, unknown>).toString());
  else if (typeof parsed === 'object' && type.startsWith('application/json')) body = Buffer.from(JSON.stringify(parsed));
  if (body !== undefined) replayBody(req, body);
}

/**
 * @internal Read a form body whose `resource` values may need rewriting and
 * give oidc-provider the rewritten body in its place. Resolves to the
 * (rewritten) parameters, or to why the body could not be read.
 */
export async function canonicalizeBody(
  req: IncomingMessage,
  resources: readonly string[],
): Promise<{ status: 'ok'; params: URLSearchParams } | { status: 'too_large' | 'unreadable' }> {
  const read = await readBody(req);
  if (read.status !== 'ok') return read;
  let body = read.body;
  const params = new URLSearchParams(body.toString('utf8'));
  if (canonicalizeParams(params, resources)) body = Buffer.from(params.toString());
  replayBody(req, body);
  return { status: 'ok', params };
}
