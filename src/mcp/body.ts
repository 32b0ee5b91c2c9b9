/**
 * The body of an `/mcp` request, read by the handlers themselves under a cap
 * (`maxBodyBytes`) before the MCP SDK sees it: a body over the cap is
 * answered 413 without being read whole, so one request cannot make the
 * server hold an unbounded body in memory. The SDK is then handed the parsed
 * body and reads nothing itself.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { checkMaxBodyBytes as checkCap, readFetchBytes, readNodeBody as readNode, type RawBody } from '../http';

/** Default cap of an `/mcp` request body: 1 MiB, far above any JSON-RPC message a client sends. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** What reading a body came to: too large (nothing more is read), or what the SDK gets as its parsed body. */
export type ReadBody = { tooLarge: true } | { tooLarge: false; parsed: unknown };

const TOO_LARGE: ReadBody = Object.freeze({ tooLarge: true });

/** @internal the `maxBodyBytes` option, checked when the handlers are built. */
export function checkMaxBodyBytes(value: unknown, path: string): number {
  return checkCap(value, DEFAULT_MAX_BODY_BYTES, path);
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

const toRead = (raw: RawBody): ReadBody => (raw.tooLarge ? TOO_LARGE : parsed(raw.bytes));

/** @internal read a node request's body under `max` bytes, or take the one a framework left on `req.body`. Rejects when the client goes away mid-body. */
export async function readNodeBody(req: IncomingMessage, max: number): Promise<ReadBody> {
  const read = await readNode(req, max);
  if ('framework' in read) return { tooLarge: false, parsed: read.framework };
  return toRead(read);
}

/** @internal read a fetch request's body under `max` bytes; the rest of a stream over it is cancelled. */
export async function readFetchBody(req: Request, max: number): Promise<ReadBody> {
  return toRead(await readFetchBytes(req, max));
}
