/**
 * The one answer of every endpoint the library returns (`/mcp`, the leak
 * endpoints, the OAuth mounts and their pages, the reference server): data
 * first (`{ status, headers, body }`),
 * then written once per runtime. The node writer never throws, always sends
 * `Content-Length`, and cuts off a response that already started or ended
 * rather than appending to it; the fetch writer makes a `Response`. Beside
 * them, the one `onError` guard: a hook that throws must not turn an answer
 * into a crash.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DenyReason } from '../core/policy';
import type { AuthenticationReason, ErrorCode, ForbiddenReason, ValidationIssue } from '../errors';

/**
 * Every `reason` an error answer gives: an `AuthenticationError` reason on a 401 (`'expired'`,
 * `'revoked'`, …; `'signature'` also on the leak endpoints' 403), a denial of `authorize` (`'role'`,
 * `'scope'`, `'thing'` on a 403; `'invalid'` on a 400), a `ForbiddenError` reason (`'ip'`), or the leak
 * endpoints' `'rate_limited'` (429). A closed union: a new reason is a change of the contract.
 *
 * @example
 * ```ts
 * import { errorAnswer, AuthenticationError, type ErrorAnswerReason } from 'svc-auth';
 * const reason: ErrorAnswerReason | undefined = errorAnswer(new AuthenticationError('expired')).body.reason; // 'expired'
 * ```
 */
export type ErrorAnswerReason = AuthenticationReason | DenyReason | ForbiddenReason | 'rate_limited';

/**
 * The JSON body of every error answer: `{ "error": code, "message": text }`, plus details when known.
 *
 * @example
 * ```ts
 * import { errorAnswer, ValidationError, type ErrorAnswerBody } from 'svc-auth';
 * const body: ErrorAnswerBody = errorAnswer(new ValidationError([{ path: 'name', message: 'is required' }])).body;
 * if (body.error === 'validation') body.issues?.[0]?.path; // ['name']
 * ```
 */
export interface ErrorAnswerBody {
  /** The `code` of the svc-auth error (`'authentication'`, `'forbidden'`, …), or `'internal'` for any other error. */
  error: ErrorCode | 'internal';
  /** For humans. Never a stack, never a token. */
  message: string;
  /** Why, when the kind of refusal is one of the fixed ones: see {@link ErrorAnswerReason}. */
  reason?: ErrorAnswerReason;
  /**
   * Every problem of a `ValidationError`, in the shape `ValidationError.issues` has:
   * `{ code, path, pathText, message }`, `path` an array (`[0, 'permissions']`), `pathText` the same as text.
   */
  issues?: ValidationIssue[];
}

type Digit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
// 500 to 599 as numbers: an adapter keeps the 5xx status a framework's own error carried (a 502 of a proxy route).
type ServerErrorStatus = `5${Digit}${Digit}` extends `${infer N extends number}` ? N : never;

/**
 * What to send for an error: status, headers (always JSON, never cached) and body. `status` is one of
 * those the error answers use: 400 `validation`, 401 `authentication`, 403 `forbidden`, 404 `not_found`,
 * 409 `conflict`, 503 `unavailable`, 500 `internal` (or the 5xx a framework's own error carried, which
 * the adapters keep with the `internal` body); the endpoints add 405, 413 and 415 (`validation`) and
 * 429 (`unavailable`).
 *
 * @example
 * ```ts
 * import { decisionError, type ErrorAnswer } from 'svc-auth';
 * const answer: ErrorAnswer = decisionError({ allowed: false, reason: 'scope' });
 * answer.status; // 403
 * ```
 */
export interface ErrorAnswer {
  status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | ServerErrorStatus;
  headers: Record<string, string>;
  body: ErrorAnswerBody;
}

/**
 * @internal one answer, before it is written: `body` is a JSON value, or the text itself when the
 * answer names a content type that is not JSON (a page); `undefined` sends no body (a redirect).
 */
export interface Answer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
}

/** The bytes of an answer's body: text as it is for a non-JSON content type, JSON otherwise. */
function textOf(a: Answer): string {
  if (a.body === undefined) return '';
  const type = a.headers['content-type'];
  if (typeof a.body === 'string' && type !== undefined && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) return a.body;
  return JSON.stringify(a.body);
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
    const text = textOf(a);
    res.writeHead(a.status, { ...a.headers, 'content-length': String(Buffer.byteLength(text)) }).end(text);
  } catch {
    cutOff(res);
  }
}

/** @internal `a` as a fetch `Response`. */
export function answerResponse(a: Answer): Response {
  return new Response(a.body === undefined ? null : textOf(a), { status: a.status, headers: a.headers });
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

/** @internal what answering one request came to: the answer, and whether its body was left (partly) unread. */
export interface Outcome {
  answer: Answer;
  unread: boolean;
}

/**
 * @internal one endpoint in the library's one shape, from how it answers each runtime's request and
 * how it answers a failure. The node form never reads its third argument (Express's `next`), writes
 * with {@link writeAnswer} and closes the connection when the body was left unread (a body a
 * framework read is never unread); neither form throws or rejects.
 */
export function endpointOf<Info>(
  answer: { node(req: IncomingMessage): Promise<Outcome>; fetch(req: Request, info?: Info): Promise<Outcome> },
  failed: (err: unknown) => Answer,
): { node(req: IncomingMessage, res: ServerResponse, next?: unknown): Promise<void>; fetch(req: Request, info?: Info): Promise<Response> } {
  return Object.freeze({
    async node(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const framework = (req as { body?: unknown }).body !== undefined;
      let unread = !framework;
      try {
        const out = await answer.node(req);
        unread = out.unread && !framework;
        writeAnswer(res, unread ? closing(out.answer) : out.answer);
      } catch (err) {
        writeAnswer(res, unread ? closing(failed(err)) : failed(err));
      }
    },
    async fetch(req: Request, info?: Info): Promise<Response> {
      try {
        return answerResponse((await answer.fetch(req, info)).answer);
      } catch (err) {
        return answerResponse(failed(err));
      }
    },
  });
}
