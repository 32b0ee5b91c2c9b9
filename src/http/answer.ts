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
