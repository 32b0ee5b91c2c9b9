/**
 * Request bodies of the leak endpoints, read as raw bytes under a cap: the
 * GitHub signature covers the exact bytes, and no request may make the server
 * hold more than the cap. A declared `Content-Length` over the cap is refused
 * before a byte is read; a stream, once it passes the cap (the rest is left
 * unread: the node form closes the connection, the fetch form cancels it).
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../errors';

/** @internal what reading a body came to. */
export type RawBody = { tooLarge: true } | { tooLarge: false; bytes: Uint8Array };

const TOO_LARGE: RawBody = Object.freeze({ tooLarge: true });
const CONSUMED = 'svc-auth: the request body was read before this handler: mount it before any body parser, or pass the body it read';
const MAX_MAX_BODY_BYTES = 100 * 1024 * 1024;

/** @internal a `maxBodyBytes` option, checked when a handler is built. */
export function checkMaxBodyBytes(value: unknown, fallback: number, path: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_MAX_BODY_BYTES) {
    throw new ValidationError([
      { code: 'invalid_value', path, message: `must be a whole number of bytes from 1 to ${MAX_MAX_BODY_BYTES}` },
    ]);
  }
  return value;
}

function declaredTooLarge(value: string | null | undefined, max: number): boolean {
  const declared = typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(declared) && declared > max;
}

/** @internal read a node request's body under `max` bytes; rejects when the client goes away mid-body. */
export function readNodeBody(req: IncomingMessage, max: number): Promise<RawBody> {
  if (declaredTooLarge(req.headers['content-length'], max)) return Promise.resolve(TOO_LARGE);
  // Read already (by a body parser mounted before the handler): a misconfiguration, a 500 that
  // `onError` hears, rather than an empty body that would be refused as the client's fault.
  if (req.readableEnded) return Promise.reject(new Error(CONSUMED));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > max) {
        // Paused, not destroyed: the 413 must still reach the client (`Connection: close` ends it after).
        stop();
        req.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => {
      stop();
      resolve({ tooLarge: false, bytes: Buffer.concat(chunks) });
    };
    const onError = (err: unknown): void => {
      stop();
      reject(err instanceof Error ? err : new Error('the request body could not be read'));
    };
    const onClose = (): void => onError(new Error('the request closed before its body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** @internal read a fetch body (a `Request`'s, or a `Response`'s) under `max` bytes; the rest of a stream over it is cancelled. */
export async function readFetchBody(req: Pick<Request, 'headers' | 'body'>, max: number): Promise<RawBody> {
  if (declaredTooLarge(req.headers.get('content-length'), max)) return TOO_LARGE;
  if (req.body === null) return { tooLarge: false, bytes: new Uint8Array(0) };
  const reader = (req.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      void reader.cancel().catch(() => undefined);
      return TOO_LARGE;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { tooLarge: false, bytes };
}

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
