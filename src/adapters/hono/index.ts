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
import type { Principal } from '../../core/policy';
import type { Auth } from '../../service';
import type { Permission } from '../../core/vocabulary';
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
  failed,
  keptOnError,
  permit,
  type ErrorHandlerOptions,
  type PermissionOptions,
  type HttpError,
  type GuardOptions,
} from '../../http';

export type { ErrorHandlerOptions, PermissionOptions, GuardOptions } from '../../http';

/** The Hono environment {@link svcAuth} provides: `c.var.principal`. */
export type PrincipalEnv = { Variables: { principal: Principal } };
/** The environment of an `optional: true` {@link svcAuth}: the principal may be `null`. */
export type OptionalPrincipalEnv = { Variables: { principal: Principal | null } };

// An error answer replaces whatever the context holds. Headers a route or a
// middleware set before the failure (a cookie, caching) must not ride along,
// as on node:http and Express; the CORS headers other middleware prepared and
// the expiry stay. Hono merges the headers of the context's current response
// into any response set after it, so that response is cleared first.
function replace(c: Context, res: Response): Response {
  try {
    for (const [name, value] of c.res.headers) if (keptOnError(name) && !res.headers.has(name)) res.headers.append(name, value);
  } catch {
    // Headers that cannot be read or copied: the answer goes without them.
  }
  c.res = undefined;
  c.res = res;
  return res;
}

function send(c: Context, made: HttpError): Response {
  return replace(c, new Response(JSON.stringify(made.body), { status: made.status, headers: made.headers }));
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
    try {
      await next();
    } catch (err) {
      // Hono hands an Error to app.onError itself; what still escapes here (a thrown
      // non-Error, an onError that threw) is answered, so this middleware never rejects.
      return send(c, failed(gate, err));
    }
    return undefined;
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
    try {
      await next();
    } catch (err) {
      return send(c, failed(admitted.gate, err)); // as in svcAuth
    }
    return undefined;
  };
}

/**
 * A Hono error handler, `app.onError(onError())`: a `SvcAuthError` thrown by
 * a route is answered per H2 (JSON, status, `WWW-Authenticate` on 401/403,
 * `Retry-After` on 503); an `HTTPException` answers with its own response;
 * anything else is a 500 with no detail (see `onError` option to log it).
 * Headers a route set before it threw are dropped from the answer, except
 * CORS ones and `Svc-Token-Expiration`.
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
  return (err, c) => {
    const made = answerer.answer(err, attachedTo(c.req.raw)?.gate.realm);
    if (made !== undefined) return send(c, made);
    const own = ownResponse(err);
    if (own !== undefined) return replace(c, own);
    return send(c, answerer.internal(err));
  };
}

// An HTTPException's own response; anything odd about it (a throwing getter, not a Response) is a 500.
function ownResponse(err: unknown): Response | undefined {
  try {
    const get = (err as { getResponse?: unknown }).getResponse;
    if (typeof get !== 'function') return undefined;
    const res: unknown = (get as () => unknown).call(err);
    // A runtime's own Response class (a polyfill, a lighter one) need not be this realm's: duck-typed.
    if (res instanceof Response) return res;
    return typeof res === 'object' && res !== null && 'headers' in res && 'status' in res ? (res as Response) : undefined;
  } catch {
    return undefined;
  }
}
