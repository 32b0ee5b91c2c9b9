/**
 * The node:http guard (also connect and Express-style handlers): a thin
 * translation over the adapter kit of the HTTP layer. Options are checked
 * once, when the guard is built; each request then makes one call into the
 * kit, which authenticates, authorizes, attaches the principal and answers
 * every refusal per H2.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Auth } from '../../service';
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
  return async (req, res, next) => {
    const admitted = await guard.admit(req, res);
    if ('answer' in admitted) return;
    try {
      // Await whatever next returns: an async handler's rejection is answered here
      // instead of escaping as an unhandled rejection that ends the process.
      await next();
    } catch (err) {
      guard.fail(res, err);
    }
  };
}
