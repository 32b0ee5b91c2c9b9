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
import type { ValidationIssue } from '../errors';

/** The JSON body of every error answer: `{ "error": code, "message": text }`, plus details when known. */
export interface HttpErrorBody {
  /** An error `code` of svc-auth (`'authentication'`, `'forbidden'`, …) or `'internal'`. */
  error: string;
  /** For humans. Never a stack, never a token. */
  message: string;
  /** Why: an `AuthenticationError` reason, a denial reason (`'role'`, `'scope'`, `'thing'`), or a `ForbiddenError` reason (`'ip'`). */
  reason?: string;
  /**
   * Every problem of a `ValidationError`, in the shape `ValidationError.issues` has:
   * `{ code, path, pathText, message }`, `path` an array (`[0, 'permissions']`), `pathText` the same as text.
   */
  issues?: ValidationIssue[];
}

/** What to send for an error: status, headers (always JSON, never cached) and body. */
export interface HttpError {
  status: number;
  headers: Record<string, string>;
  body: HttpErrorBody;
}

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

/** @internal an `onError` hook that never throws (a failing logger must not turn an answer into a crash). */
export function guardOnError(onError: ((err: unknown) => void) | undefined): (err: unknown) => void {
  return (err) => {
    try {
      onError?.(err);
    } catch {
      // Logging failed; the client still gets its answer.
    }
  };
}
