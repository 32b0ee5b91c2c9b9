/**
 * The one answer of every endpoint the library returns (`/mcp`, the leak
 * endpoints, the reference server): data first (`{ status, headers, body }`),
 * then written once per runtime. The node writer never throws, always sends
 * `Content-Length`, and cuts off a response that already started or ended
 * rather than appending to it; the fetch writer makes a `Response`. Beside
 * them, the one `onError` guard: a hook that throws must not turn an answer
 * into a crash.
 * @module
 */
import type { ServerResponse } from 'node:http';

/** @internal one answer, before it is written. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** @internal the headers of every JSON answer. */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
});

/** @internal the same answer, closing the connection once it is sent (a node request whose body was left unread). */
export function closing(a: Answer): Answer {
  return { ...a, headers: { ...a.headers, connection: 'close' } };
}

function cutOff(res: ServerResponse): void {
  try {
    if (!res.destroyed) res.destroy();
  } catch {
    // Nothing left to answer on.
  }
}

/** @internal write `a` to a node response with `Content-Length`; never throws (a response that cannot take it is cut off). */
export function writeAnswer(res: ServerResponse, a: Answer): void {
  try {
    if (res.headersSent || res.writableEnded) return cutOff(res);
    const text = JSON.stringify(a.body);
    res.writeHead(a.status, { ...a.headers, 'content-length': String(Buffer.byteLength(text)) }).end(text);
  } catch {
    cutOff(res);
  }
}

/** @internal `a` as a fetch `Response`. */
export function answerResponse(a: Answer): Response {
  return new Response(JSON.stringify(a.body), { status: a.status, headers: a.headers });
}

/**
 * @internal a caller's hook (`onError`, a guard's `onDecision`) that never throws and never rejects:
 * a failing logger must not turn an answer into a crash, nor a refusal into anything else. An async
 * hook's rejection is caught too, or it would end the process as an unhandled rejection.
 */
export function guardOnError<A extends unknown[] = [err: unknown]>(hook: ((...args: A) => unknown) | undefined): (...args: A) => void {
  return (...args) => {
    try {
      const out = hook?.(...args);
      if (typeof (out as PromiseLike<unknown> | undefined)?.then === 'function') {
        Promise.resolve(out).catch(() => undefined);
      }
    } catch {
      // Logging failed; the client still gets its answer.
    }
  };
}
