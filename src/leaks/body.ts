/**
 * Request bodies of the leak endpoints, read as raw bytes under a cap: the
 * GitHub signature covers the exact bytes, and no request may make the server
 * hold more than the cap. A declared `Content-Length` over the cap is refused
 * before a byte is read; a stream, once it passes the cap (the rest is left
 * unread: the node form closes the connection, the fetch form cancels it).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { checkMaxBodyBytes, declaredTooLarge, readFetchBytes, readNodeBytes, TOO_LARGE, type RawBody } from '../http';

export { checkMaxBodyBytes, type RawBody };

const CONSUMED = 'svc-auth: the request body was read before this handler: mount it before any body parser, or pass the body it read';

/** @internal read a node request's body under `max` bytes; rejects when the client goes away mid-body. */
export function readNodeBody(req: IncomingMessage, max: number): Promise<RawBody> {
  if (declaredTooLarge(req.headers['content-length'], max)) return Promise.resolve(TOO_LARGE);
  // Read already (by a body parser mounted before the handler): a misconfiguration, a 500 that
  // `onError` hears, rather than an empty body that would be refused as the client's fault.
  if (req.readableEnded) return Promise.reject(new Error(CONSUMED));
  return readNodeBytes(req, max);
}

/** @internal read a fetch body (a `Request`'s, or a `Response`'s) under `max` bytes. */
export const readFetchBody = readFetchBytes;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * @internal the JSON value of a body, or `undefined` when it is not UTF-8 JSON. JSON.parse
 * builds `__proto__` as an own property (no prototype is reached), and V8's parser is not
 * recursive, so deep nesting is no stack overflow.
 */
export function parseJson(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(strictUtf8.decode(bytes)) as unknown };
  } catch {
    return undefined;
  }
}

/** @internal a header of a node request as one string (repeats joined as fetch joins them), or `undefined`. */
export function nodeHeader(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
