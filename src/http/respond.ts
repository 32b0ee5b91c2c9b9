/**
 * Writing answers: fetch `Response` objects and node `ServerResponse`s.
 * @module
 */
import type { ServerResponse } from 'node:http';
import { ValidationError } from '../errors';
import { errorAnswer, type ErrorAnswerBody } from './errors';
import { send } from './kit';
import { answerResponse, writeAnswer } from './answer';

/**
 * The fetch `Response` for any thrown value, per {@link errorAnswer} (H2).
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
  return answerResponse(errorAnswer(err));
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
  writeAnswer(res, { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body });
}

/**
 * Answers a node `ServerResponse` with the error answer for any thrown value,
 * per {@link errorAnswer} (H2). Never throws. When the response has already
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
  send(nodeResponse, res, errorAnswer(err));
}

/**
 * @internal the part of an adapter kit `Port` that writes to a node
 * `ServerResponse` (node:http, connect, Express): shared by every adapter on
 * node's response object and by {@link sendError}.
 */
export const nodeResponse = Object.freeze({
  header(res: ServerResponse, name: string, value: string): void {
    if (!res.headersSent) res.setHeader(name, value);
  },
  headers(res: ServerResponse): [string, string][] {
    return res.getHeaderNames().map((name) => {
      const value = res.getHeader(name);
      return [name, Array.isArray(value) ? value.join(', ') : String(value)];
    });
  },
  write(res: ServerResponse, status: number, headers: Record<string, string>, body: ErrorAnswerBody): ServerResponse {
    try {
      if (res.headersSent || res.writableEnded) {
        if (!res.writableEnded && !res.destroyed) res.destroy();
        return res;
      }
      // The answer replaces the response: the kit passed on the headers that stay.
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      sendJson(res, status, body, headers);
    } catch {
      try {
        res.destroy();
      } catch {
        // Nothing more can be done with a response that cannot even be closed.
      }
    }
    return res;
  },
});
