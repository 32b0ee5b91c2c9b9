/**
 * The body of an `/mcp` request, read by the handlers themselves under a cap
 * (`maxBodyBytes`) before the MCP SDK sees it: a body over the cap is
 * answered 413 without being read whole, so one request cannot make the
 * server hold an unbounded body in memory. The SDK is then handed the parsed
 * body and reads nothing itself.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../errors';

/** Default cap of an `/mcp` request body: 1 MiB, far above any JSON-RPC message a client sends. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
// The largest cap an option may set; beyond it a "cap" no longer protects anything.
const MAX_MAX_BODY_BYTES = 100 * 1024 * 1024;

/** What reading a body came to: too large (nothing more is read), or what the SDK gets as its parsed body. */
export type ReadBody = { tooLarge: true } | { tooLarge: false; parsed: unknown };

const TOO_LARGE: ReadBody = Object.freeze({ tooLarge: true });

/** @internal the `maxBodyBytes` option, checked when the handlers are built. */
export function checkMaxBodyBytes(value: unknown, path: string): number {
  if (value === undefined) return DEFAULT_MAX_BODY_BYTES;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_MAX_BODY_BYTES) {
    throw new ValidationError([
      { code: 'invalid_value', path, message: `must be a whole number of bytes from 1 to ${MAX_MAX_BODY_BYTES}` },
    ]);
  }
  return value;
}

/**
 * The body as the SDK wants it: the JSON value, or the text itself when it is
 * not JSON, which the SDK then refuses as a JSON-RPC parse error (-32700)
 * after its own checks of `Accept` and `Content-Type`, as it would have.
 */
function parsed(bytes: Uint8Array): ReadBody {
  const text = new TextDecoder().decode(bytes);
  try {
    return { tooLarge: false, parsed: JSON.parse(text) as unknown };
  } catch {
    return { tooLarge: false, parsed: text };
  }
}

/** A declared `Content-Length` over the cap: refused before a byte of the body is read. */
function declaredTooLarge(value: unknown, max: number): boolean {
  const declared = typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(declared) && declared > max;
}

/** @internal read a node request's body under `max` bytes. Rejects when the client goes away mid-body. */
export function readNodeBody(req: IncomingMessage, max: number): Promise<ReadBody> {
  if (declaredTooLarge(req.headers['content-length'], max)) return Promise.resolve(TOO_LARGE);
  if (req.readableEnded) return Promise.resolve(parsed(new Uint8Array(0)));
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
        // Stop reading, not destroy: the 413 still has to reach the client, and
        // its `Connection: close` makes node close the socket once it is sent.
        stop();
        req.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => {
      stop();
      resolve(parsed(Buffer.concat(chunks)));
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

/** @internal read a fetch request's body under `max` bytes; the rest of a stream over it is cancelled. */
export async function readFetchBody(req: Request, max: number): Promise<ReadBody> {
  if (declaredTooLarge(req.headers.get('content-length') ?? undefined, max)) return TOO_LARGE;
  if (req.body === null) return parsed(new Uint8Array(0));
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
  return parsed(bytes);
}
