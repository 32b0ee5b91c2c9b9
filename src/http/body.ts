/**
 * Request bodies read as raw bytes under a cap, for the handlers that read
 * their own body (`/mcp`, the leak endpoints, the OAuth mounts and forms): a declared `Content-Length` over
 * the cap is refused before a byte is read; a stream, once it passes the cap
 * (the rest is left unread: the node form closes the connection, the fetch
 * form cancels it). No request can make a server hold more than the cap, nor
 * hold a read open past the deadline (a node request is then destroyed, a
 * fetch stream cancelled, as the OAuth forms do).
 *
 * A body a framework already read (Express's `express.json()` or
 * `express.raw()`, connect's body parsers) is stated, not guessed: when the
 * framework put it on `req.body`, that value is the body; when the stream is
 * over and `req.body` holds nothing, the handler was mounted after a parser
 * that kept the body to itself, a misconfiguration answered 500 (and heard by
 * `onError`) rather than an empty body refused as the client's fault.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../errors';

/** @internal what reading a body came to. */
export type RawBody = { tooLarge: true } | { tooLarge: false; bytes: Uint8Array };

/** @internal what a node handler reads: raw bytes, too large, or the value a framework left on `req.body`. */
export type NodeBody = RawBody | { tooLarge: false; framework: unknown };

/** @internal how long a body may take to arrive, from the first read. */
export const BODY_DEADLINE_MS = 10_000;

const CONSUMED =
  'svc-auth: the request body was read before this handler and not left on req.body: mount it before any body parser, or use a parser that sets req.body';

/** @internal the one too-large answer. */
export const TOO_LARGE: RawBody = Object.freeze({ tooLarge: true });
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

/** @internal a declared `Content-Length` over the cap: refused before a byte of the body is read. */
export function declaredTooLarge(value: string | null | undefined, max: number): boolean {
  const declared = typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(declared) && declared > max;
}

/** @internal read a node request's body under `max` bytes; rejects when the client goes away mid-body. A body already read is the caller's case. */
export function readNodeBytes(req: IncomingMessage, max: number, deadlineMs = BODY_DEADLINE_MS): Promise<RawBody> {
  if (declaredTooLarge(req.headers['content-length'], max)) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // A client that trickles its body must not hold the read (and its memory) open: destroyed, the 'close' below rejects.
    const timer = setTimeout(() => req.destroy(), deadlineMs);
    const stop = (): void => {
      clearTimeout(timer);
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
export async function readFetchBytes(req: Pick<Request, 'headers' | 'body'>, max: number, deadlineMs = BODY_DEADLINE_MS): Promise<RawBody> {
  if (declaredTooLarge(req.headers.get('content-length'), max)) return TOO_LARGE;
  if (req.body === null) return { tooLarge: false, bytes: new Uint8Array(0) };
  const reader = (req.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    void reader.cancel().catch(() => undefined);
  }, deadlineMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // Cancelled by the deadline, the stream reads as done: a cut body, never a whole one.
      if (late) throw new Error(`the request body did not arrive within ${deadlineMs} ms`);
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        void reader.cancel().catch(() => undefined);
        return TOO_LARGE;
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { tooLarge: false, bytes };
}

/**
 * @internal the rule for a node request whose stream is over with nothing on `req.body`: thrown, a
 * misconfiguration (see the module), never read as an empty body.
 */
export function assertUnread(req: IncomingMessage): void {
  if (req.readableEnded && (req as { body?: unknown }).body === undefined) throw new Error(CONSUMED);
}

/**
 * @internal a node handler's body: the value a framework left on `req.body`, else the stream read
 * under `max` bytes and the deadline. A stream already over with nothing on `req.body` rejects (see
 * the module: a misconfiguration, never an empty body).
 */
export function readNodeBody(req: IncomingMessage, max: number, deadlineMs = BODY_DEADLINE_MS): Promise<NodeBody> {
  const framework = (req as { body?: unknown }).body;
  if (framework !== undefined) return Promise.resolve({ tooLarge: false, framework });
  if (declaredTooLarge(req.headers['content-length'], max)) return Promise.resolve(TOO_LARGE);
  if (req.readableEnded) return Promise.reject(new Error(CONSUMED));
  return readNodeBytes(req, max, deadlineMs);
}
