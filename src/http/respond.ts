/**
 * Writing answers: fetch `Response` objects and node `ServerResponse`s.
 * @module
 */
import type { ServerResponse } from 'node:http';
import { ValidationError } from '../errors';
import { httpError, type HttpError } from './errors';

/**
 * The fetch `Response` for any thrown value, per {@link httpError} (H2).
 *
 * @example
 * ```ts
 * import { errorResponse } from 'svc-auth';
 * export default {
 *   async fetch(req: Request): Promise<Response> {
 *     try { return await handle(req); } catch (err) { return errorResponse(err); }
 *   },
 * };
 * ```
 */
export function errorResponse(err: unknown): Response {
  return toResponse(httpError(err));
}

/** @internal shared by `errorResponse` and the fetch wrapper. */
export function toResponse(answer: HttpError): Response {
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
}

/**
 * Writes a JSON answer to a node `ServerResponse` and ends it, with
 * `Content-Type: application/json; charset=utf-8` and `Content-Length`.
 * Extra headers are set after those, so they may override them.
 *
 * @throws ValidationError when `status` is not an integer from 100 to 599, when
 *   `body` cannot be written as JSON, or when the response has already started
 *   (nothing is written then).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { sendJson } from 'svc-auth';
 * createServer((req, res) => sendJson(res, 200, { ok: true })).listen(0, '127.0.0.1');
 * ```
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new ValidationError([{ path: 'status', message: 'must be an integer from 100 to 599' }]);
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch {
    text = undefined;
  }
  if (text === undefined) throw new ValidationError([{ path: 'body', message: 'must be a JSON value' }]);
  if (res.headersSent || res.writableEnded) {
    throw new ValidationError([{ path: 'res', message: 'the response has already started' }]);
  }
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  if (headers !== undefined) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(text);
}

/**
 * Answers a node `ServerResponse` with the error answer for any thrown value,
 * per {@link httpError} (H2). Never throws. When the response has already
 * started, a status can no longer be sent: the connection is closed instead,
 * so the client sees a broken answer rather than a truncated one that looks
 * complete. Headers set before the error are dropped, except CORS ones
 * (`Access-Control-*`, `Vary`).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { sendError, sendJson } from 'svc-auth';
 * createServer(async (req, res) => {
 *   try {
 *     const principal = await auth.authenticateRequest(req);
 *     sendJson(res, 200, { user: principal.userId });
 *   } catch (err) {
 *     sendError(res, err);
 *   }
 * });
 * ```
 */
export function sendError(res: ServerResponse, err: unknown): void {
  writeAnswer(res, httpError(err));
}

// CORS headers must survive, or a browser cannot even read the 401; so does
// the credential's expiry, which a guard set once the credential was accepted.
const KEPT_ON_ERROR = /^(?:access-control-|vary$|svc-token-expiration$)/i;

/**
 * @internal whether a header set before a failure stays on the error answer.
 * One rule for every guard and adapter: a cookie, a cache header or an encoding
 * that a route set before it threw must not ride along with a 401, 403 or 500.
 */
export function keptOnError(name: string): boolean {
  return KEPT_ON_ERROR.test(name);
}

/** @internal write a computed answer; never throws (see `sendError`). */
export function writeAnswer(res: ServerResponse, answer: HttpError): void {
  try {
    if (res.headersSent || res.writableEnded) {
      if (!res.writableEnded && !res.destroyed) res.destroy();
      return;
    }
    // Headers set before the failure (cookies, caching, encoding) must not ride along with an error.
    for (const name of res.getHeaderNames()) if (!keptOnError(name)) res.removeHeader(name);
    sendJson(res, answer.status, answer.body, answer.headers);
  } catch {
    try {
      res.destroy();
    } catch {
      // Nothing more can be done with a response that cannot even be closed.
    }
  }
}
