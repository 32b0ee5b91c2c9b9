/**
 * Request bodies of the leak endpoints, read by the HTTP layer's one reader
 * (cap, deadline, the rule for a body a framework already read): the GitHub
 * signature covers the exact bytes, so that endpoint takes a framework's body
 * only as bytes (`express.raw()`).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { checkMaxBodyBytes, readFetchBytes, readNodeBody, type RawBody } from '../http';

export { checkMaxBodyBytes, readNodeBody, type RawBody };

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
