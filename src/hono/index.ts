/**
 * `svc-auth/hono`: middleware for Hono (any runtime with fetch `Request`).
 *
 * - {@link svcAuth} authenticates the bearer credential; read the principal with `c.var.principal`.
 * - {@link requirePermission} decides a route with `auth.authorize` on `c.req.param()`.
 * - {@link onError} answers any `SvcAuthError` per H2: `app.onError(onError())`.
 *
 * `hono` is an optional peer dependency: install it yourself.
 * @module
 */
import type { Context, Env, ErrorHandler, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Principal } from '../policy';
import type { Auth } from '../service';
import type { Permission } from '../vocabulary';
import {
  adapterGate,
  adapterRoute,
  errorAnswerer,
  notAdmitted,
  EXPIRATION_HEADER,
  admit,
  attach,
  attachedTo,
  expiration,
  permit,
  type ErrorHandlerOptions,
  type PermissionOptions,
  type HttpError,
  type GuardOptions,
} from '../http';

export type { ErrorHandlerOptions, PermissionOptions, GuardOptions } from '../http';

/** The Hono environment {@link svcAuth} provides: `c.var.principal`. */
export type PrincipalEnv = { Variables: { principal: Principal } };
/** The environment of an `optional: true` {@link svcAuth}: the principal may be `null`. */
export type OptionalPrincipalEnv = { Variables: { principal: Principal | null } };

// The answer through `c.json`, so that headers other middleware prepared on
// the context (CORS, the expiry) stay on the error response.
function send(c: Context, made: HttpError): Response {
  return c.json(made.body, made.status as ContentfulStatusCode, made.headers);
}

/**
 * Hono middleware that authenticates the `Authorization: Bearer` credential
 * and sets the `principal` variable (`c.var.principal`, `c.get('principal')`).
 * No credential: 401 with `WWW-Authenticate: Bearer realm="svc"` (with
 * `optional: true`, the principal is `null` instead); a bad, expired or
 * revoked credential: 401 `invalid_token`. On success it sets
 * `Svc-Token-Expiration` unless `expirationHeader: false`.
 *
 * @throws ValidationError when `auth` or the options are not usable.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { svcAuth, type PrincipalEnv } from 'svc-auth/hono';
 * const app = new Hono<PrincipalEnv>();
 * app.use('/api/*', svcAuth(auth));
 * app.get('/api/whoami', (c) => c.json({ user: c.var.principal.userId }));
 * ```
 */
export function svcAuth(auth: Auth, options: GuardOptions & { optional: true }): MiddlewareHandler<OptionalPrincipalEnv>;
export function svcAuth(auth: Auth, options?: GuardOptions): MiddlewareHandler<PrincipalEnv>;
export function svcAuth(auth: Auth, options?: GuardOptions): MiddlewareHandler {
  const { gate } = adapterGate(auth, options);
  const handler: MiddlewareHandler<OptionalPrincipalEnv> = async (c, next) => {
    const admitted = await admit(gate, c.req.raw);
    if ('answer' in admitted) return send(c, admitted.answer);
    c.set('principal', admitted.principal);
    attach(c.req.raw, gate, admitted.principal);
    const expires = expiration(gate, admitted.principal);
    if (expires !== undefined) c.header(EXPIRATION_HEADER, expires);
    await next();
  };
  return handler as MiddlewareHandler;
}

/**
 * Hono middleware that allows the request only when the principal that
 * {@link svcAuth} set holds `permission` on `resource(c)` (and, when given, on
 * `thing(c)`). Read both from `c.req.param()`. A denial is 403
 * `insufficient_scope` with the reason in the body; an invalid resource is
 * 400; no principal (an `optional` guard saw no credential) is 401.
 *
 * @throws ValidationError when `permission` is not a permission or `resource` is missing.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { requirePermission, svcAuth, type PrincipalEnv } from 'svc-auth/hono';
 * const app = new Hono<PrincipalEnv>();
 * app.use(svcAuth(auth));
 * app.get('/api/repos/:org/:repo/head',
 *   requirePermission('repo:read', { resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}` }),
 *   (c) => c.json({ head: 'abc123' }));
 * ```
 */
export function requirePermission<E extends Env = Env, P extends string = string>(
  permission: Permission,
  options: PermissionOptions<Context<E, P>>,
): MiddlewareHandler<E, P> {
  const route = adapterRoute<Context<E, P>>(permission, options);
  return async (c, next) => {
    const admitted = attachedTo(c.req.raw);
    if (admitted === undefined) throw notAdmitted('hono');
    const refused = permit(admitted.gate, admitted.principal, route, c);
    if (refused !== undefined) return send(c, refused);
    await next();
  };
}

/**
 * A Hono error handler, `app.onError(onError())`: a `SvcAuthError` thrown by
 * a route is answered per H2 (JSON, status, `WWW-Authenticate` on 401/403,
 * `Retry-After` on 503); an `HTTPException` answers with its own response;
 * anything else is a 500 with no detail (see `onError` option to log it).
 *
 * @throws ValidationError when the options are not usable.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { onError } from 'svc-auth/hono';
 * const app = new Hono();
 * app.onError(onError({ onError: (err) => console.error(err) }));
 * ```
 */
export function onError(options?: ErrorHandlerOptions): ErrorHandler {
  const answerer = errorAnswerer(options);
  const log = options?.onError;
  return (err, c) => {
    const made = answerer.answer(err, attachedTo(c.req.raw)?.gate.realm);
    if (made !== undefined) return send(c, made);
    const own = (err as { getResponse?: unknown }).getResponse;
    if (typeof own === 'function') return (own as () => Response).call(err);
    if (log !== undefined) {
      try {
        log(err);
      } catch {
        // A failing logger must not turn an answer into a crash.
      }
    }
    return c.json({ error: 'internal', message: 'internal error' }, 500, { 'cache-control': 'no-store' });
  };
}
