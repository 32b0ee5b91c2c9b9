/**
 * The node:http guard (also connect and Express-style handlers): a thin
 * translation over the adapter kit of the HTTP layer. Options are checked
 * once, when the guard is built; each request then makes one call into the
 * kit, which authenticates, authorizes, attaches the principal and answers
 * every refusal per H2.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isThenable, type Auth } from '../../service';
import { adapterKit, nodeResponse, type AuthCheck } from '../../http';

/**
 * A node:http, connect or Express middleware. It never rejects: whatever
 * `next` throws or returns as a rejected promise is answered per H2.
 */
export type NodeMiddleware<R extends IncomingMessage = IncomingMessage> = (
  req: R,
  res: ServerResponse,
  next: (err?: unknown) => unknown,
) => Promise<void>;

const kit = adapterKit('node', { ...nodeResponse, request: (req: IncomingMessage) => req });

/**
 * A node middleware `(req, res, next)` that authenticates the bearer token,
 * checks `permission` on `resource(req)` (and `thing(req)`) when given, makes
 * the principal available through `principalOf`, and calls `next()`.
 * Any failure is answered at once per H2 (401, 403, 400, 503, 500) and `next`
 * is not called.
 *
 * @throws ValidationError when `auth` or the options are not usable (unknown
 *   option, unknown permission, `permission` without `resource`, a non-function).
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { requireAuth, principalOf } from 'svc-auth';
 * const app = express();
 * app.get('/api/repos/:org/:repo/head',
 *   requireAuth(auth, { permission: 'repo:read', resource: (req: express.Request) => `${req.params.org}/${req.params.repo}` }),
 *   (req, res) => { res.json({ head: 'abc123', user: principalOf(req).userId }); });
 * ```
 */
export function requireAuth<R extends IncomingMessage = IncomingMessage>(auth: Auth, options?: AuthCheck<R>): NodeMiddleware<R> {
  return middleware(kit.guard<R>(auth, options));
}

function middleware<R extends IncomingMessage>(guard: ReturnType<typeof kit.guard<R>>): NodeMiddleware<R> {
  /** After admission: the handler, whose throw or rejection is answered here (never an unhandled rejection). */
  function proceed(res: ServerResponse, admitted: Admitted, next: (err?: unknown) => unknown): Promise<void> {
    if ('answer' in admitted) return DONE;
    let ran: unknown;
    try {
      ran = next();
      if (!isThenable(ran)) return DONE;
    } catch (err) {
      guard.fail(res, err);
      return DONE;
    }
    // Whatever next returns is awaited: an async handler's rejection is answered, not left to end the process.
    return Promise.resolve(ran as PromiseLike<unknown>).then(NOTHING, (err: unknown) => void guard.fail(res, err));
  }
  return (req, res, next) => {
    // A hot token on an in-process store is admitted in this turn: no promise is made for it.
    let admitted: Admitted | Promise<Admitted>;
    try {
      admitted = guard.admit(req, res);
    } catch (err) {
      guard.internal(res, err);
      return DONE;
    }
    return admitted instanceof Promise ? admitted.then((a) => proceed(res, a, next)) : proceed(res, admitted, next);
  };
}

type Admitted = Awaited<ReturnType<ReturnType<typeof kit.guard>['admit']>>;

const DONE: Promise<void> = Promise.resolve();
const NOTHING = (): void => undefined;
