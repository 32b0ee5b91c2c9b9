/**
 * `svc-auth/express`: middleware for Express 4 and 5.
 *
 * - {@link svcAuth} authenticates the bearer credential and sets `req.principal`.
 * - {@link requirePermission} decides a route with `auth.authorize` on the route's own parameters.
 * - {@link errorHandler} answers any `SvcAuthError` per H2 (JSON 400/401/403/404/409/503).
 *
 * `express` is an optional peer dependency: install it yourself.
 * @module
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { Principal } from '../../core/policy';
import type { Auth } from '../../service';
import type { Permission } from '../../core/vocabulary';
import { adapterKit, nodeResponse, type ErrorHandlerOptions, type PermissionOptions, type GuardOptions } from '../../http';

export type { ErrorHandlerOptions, PermissionOptions, GuardOptions } from '../../http';

/**
 * A switch for the type of `req.principal`, by declaration merging. Left
 * empty, `req.principal` is a `Principal`. When `svcAuth()` runs with
 * `optional: true` anywhere in your app, say so here, and `req.principal`
 * becomes `Principal | null` everywhere.
 *
 * @example
 * not-checked: a module augmentation changes the type for the whole program it is in
 * ```ts
 * declare module 'svc-auth/express' {
 *   interface SvcAuthTypes {
 *     optional: true;
 *   }
 * }
 * ```
 */
export interface SvcAuthTypes {} // eslint-disable-line @typescript-eslint/no-empty-object-type -- empty until a user merges `optional: true` into it

/** The type of `req.principal`: `Principal`, or `Principal | null` once {@link SvcAuthTypes} says `optional: true`. */
export type RequestPrincipal = SvcAuthTypes extends { optional: true } ? Principal | null : Principal;

declare global {
  // Declaration merging into Express's own Request type (not `req.auth`: the MCP SDK types that as its AuthInfo).
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /**
       * Set by `svcAuth()` of svc-auth/express: the authenticated principal.
       * With `optional: true` it is `null` when the request carried no
       * credential (declare that in `SvcAuthTypes` to have it typed so).
       * Mount `svcAuth()` before the routes that read it: on a request no
       * `svcAuth()` has seen it is not set (`principalOf(req)` then answers 401).
       */
      principal: RequestPrincipal;
    }
  }
}

// Express's req and res are node's, with req.principal besides.
const kit = adapterKit('express', {
  ...nodeResponse,
  request: (req: Request) => req,
  set(req: Request, principal: Principal | null) {
    req.principal = principal as RequestPrincipal;
  },
});

/**
 * Express middleware that authenticates the `Authorization: Bearer` credential
 * and sets `req.principal`. No credential: 401 with `WWW-Authenticate: Bearer
 * realm="svc"` (or `req.principal = null` with `optional: true`); a bad,
 * expired or revoked credential: 401 `invalid_token`. On success it sets
 * `Svc-Token-Expiration` (unless `expirationHeader: false`) and calls `next()`.
 *
 * @throws ValidationError when `auth` or the options are not usable.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { svcAuth, errorHandler } from 'svc-auth/express';
 * const app = express();
 * app.use(svcAuth(auth));
 * app.get('/whoami', (req, res) => { res.json({ user: req.principal.userId }); });
 * app.use(errorHandler());
 * ```
 */
export function svcAuth(
  auth: Auth,
  options?: GuardOptions<Request> & {
    /** The connection's peer address, when `req.socket` is not it (`AdmissionOptions.clientAddress` of svc-auth). */
    clientAddress?: (req: Request) => string | undefined;
  },
): RequestHandler {
  const guard = kit.admission(auth, options);
  return (req, res, next) => {
    // admit never rejects: every failure is already an answer. A hot token on an in-process store is
    // admitted in this turn, and the next handler runs in it too (no promise).
    const admitted = guard.admit(req, res);
    if (!(admitted instanceof Promise)) {
      if (!('answer' in admitted)) next();
      return;
    }
    void admitted
      .then((a) => {
        if (!('answer' in a)) next();
      })
      .catch(next); // nothing above should throw; if it does, Express's error path answers it.
  };
}

/**
 * Express middleware that allows the request only when the principal that
 * {@link svcAuth} set holds `permission` on `resource(req)` (and, when given,
 * on the thing `thing(req)`). A denial is 403 `insufficient_scope` with the
 * reason (`role`, `scope`, `thing`) in the body; an invalid resource is 400;
 * no principal (an `optional` guard saw no credential) is 401.
 *
 * Read the resource from `req.params`, never from `req.url`: Express rewrites
 * `req.url` under a mounted router.
 *
 * @throws ValidationError when `permission` is not a permission or `resource` is missing.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { requirePermission } from 'svc-auth/express';
 * const api = express.Router();
 * api.get('/repos/:org/:repo/head',
 *   requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }),
 *   (req, res) => { res.json({ head: 'abc123' }); });
 * ```
 */
export function requirePermission<R extends Request = Request>(permission: Permission, options: PermissionOptions<R>): RequestHandler {
  const route = kit.permission<R>(permission, options);
  return (req, res, next) => {
    let refused: unknown;
    try {
      refused = route.permit(req as R, res);
    } catch (err) {
      return next(err); // no svcAuth admitted this request: Express's error path answers it
    }
    if (refused === undefined) next();
  };
}

/**
 * Express error middleware: answers any `SvcAuthError` a route throws (or
 * passes to `next`) per H2, as JSON with the right status and headers, so a
 * `NotFoundError` from `auth.client(p).token.revoke(...)` is a 404, not
 * Express's HTML 500 page. Other errors go on to the next error handler.
 * Install it after your routes.
 *
 * @throws ValidationError when the options are not usable.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { principalOf } from 'svc-auth';
 * import { errorHandler, svcAuth } from 'svc-auth/express';
 * const app = express();
 * app.use('/api', svcAuth(auth));
 * app.delete('/api/tokens/:name', async (req, res) => {
 *   res.json(await auth.client(principalOf(req)).token.revoke(req.params.name)); // NotFoundError: 404
 * });
 * app.use(errorHandler({ onError: (err) => console.error(err) }));
 * ```
 */
export function errorHandler(options?: ErrorHandlerOptions): ErrorRequestHandler {
  const errors = kit.errors(options);
  return (err, req, res, next) => {
    if (res.headersSent || errors.answer(req, res, err) === undefined) next(err);
  };
}
