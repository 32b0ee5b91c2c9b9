/**
 * `svc-auth/fastify`: a Fastify 5 plugin (built with `fastify-plugin`, bundled
 * into this entry) and a `preHandler` per route.
 *
 * - `app.register(svcAuth, { auth })` authenticates every request and decorates `request.principal`.
 * - {@link requirePermission} decides a route with `auth.authorize` on `request.params`.
 * - {@link errorHandler} answers any `SvcAuthError` a route throws per H2: `app.setErrorHandler(errorHandler())`.
 *
 * Every answer goes through `reply`, so headers other plugins set (for
 * example `@fastify/cors`) stay on 401 and 403. `fastify` is an optional peer
 * dependency: install it yourself.
 * @module
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
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

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set by the svc-auth/fastify plugin: the authenticated principal, or
     * `null` when `optional: true` and the request carried no credential.
     */
    principal: Principal | null;
  }
}

/** Options of the {@link svcAuth} plugin: the `Auth` to use, and the options every guard shares. */
export interface SvcAuthPluginOptions extends GuardOptions {
  /** What `createAuth` returned. */
  auth: Auth;
}

function send(reply: FastifyReply, made: HttpError): FastifyReply {
  // reply.headers adds to what other hooks set (CORS): nothing is removed.
  return reply.code(made.status).headers(made.headers).send(made.body);
}

// Async so that fastify reports a bad option as a rejected register(), with nothing to await inside.
// eslint-disable-next-line @typescript-eslint/require-await
const plugin: FastifyPluginAsync<SvcAuthPluginOptions> = async (app, options) => {
  const { auth, ...rest } = options ?? {};
  const { gate } = adapterGate(auth, rest);
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    const admitted = await admit(gate, request.raw);
    if ('answer' in admitted) return send(reply, admitted.answer);
    request.principal = admitted.principal;
    attach(request, gate, admitted.principal);
    const expires = expiration(gate, admitted.principal);
    if (expires !== undefined) reply.header(EXPIRATION_HEADER, expires);
    return undefined;
  });
};

/**
 * The Fastify plugin: authenticates the `Authorization: Bearer` credential of
 * every request (an `onRequest` hook) and sets `request.principal`. No
 * credential: 401 with `WWW-Authenticate: Bearer realm="svc"` (with
 * `optional: true`, `request.principal` is `null` instead); a bad, expired or
 * revoked credential: 401 `invalid_token`. On success it sets
 * `Svc-Token-Expiration` unless `expirationHeader: false`. Wrapped with
 * `fastify-plugin`, so it applies to the scope you register it in and below.
 *
 * @throws ValidationError (at `register`/`ready`) when `auth` or the options are not usable.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { svcAuth } from 'svc-auth/fastify';
 * const app = Fastify();
 * await app.register(svcAuth, { auth });
 * app.get('/whoami', async (request) => ({ user: request.principal?.userId }));
 * ```
 */
export const svcAuth: FastifyPluginAsync<SvcAuthPluginOptions> = fp(plugin, { fastify: '5.x', name: 'svc-auth' });

/**
 * A `preHandler` that allows the request only when `request.principal` holds
 * `permission` on `resource(request)` (and, when given, on
 * `thing(request)`). Read both from `request.params`. A denial is 403
 * `insufficient_scope` with the reason in the body; an invalid resource is
 * 400; no principal (an `optional` plugin saw no credential) is 401.
 *
 * @throws ValidationError when `permission` is not a permission or `resource` is missing.
 *
 * @example
 * ```ts
 * import Fastify, { type FastifyRequest } from 'fastify';
 * import { requirePermission, svcAuth } from 'svc-auth/fastify';
 * const app = Fastify();
 * await app.register(svcAuth, { auth });
 * type Repo = { Params: { org: string; repo: string } };
 * app.get<Repo>('/repos/:org/:repo/head', {
 *   preHandler: requirePermission('repo:read', { resource: (req: FastifyRequest<Repo>) => `${req.params.org}/${req.params.repo}` }),
 * }, async () => ({ head: 'abc123' }));
 * ```
 */
export function requirePermission<R extends FastifyRequest = FastifyRequest>(
  permission: Permission,
  options: PermissionOptions<R>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const route = adapterRoute<R>(permission, options);
  // The hook takes any request of the route; `R` only types what `resource` and `thing` read.
  return async (request, reply) => {
    const admitted = attachedTo(request);
    if (admitted === undefined) throw notAdmitted('fastify');
    const refused = permit(admitted.gate, admitted.principal, route, request as R);
    if (refused !== undefined) await send(reply, refused);
  };
}

/**
 * A Fastify error handler, `app.setErrorHandler(errorHandler())`: a
 * `SvcAuthError` a route throws is answered per H2 (JSON, status,
 * `WWW-Authenticate` on 401/403, `Retry-After` on 503). Any other error is
 * handed back to Fastify's default handling.
 *
 * @throws ValidationError when the options are not usable.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { errorHandler } from 'svc-auth/fastify';
 * const app = Fastify();
 * app.setErrorHandler(errorHandler());
 * ```
 */
export function errorHandler(
  options?: ErrorHandlerOptions,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  const answerer = errorAnswerer(options);
  return (error, request, reply) => {
    const made = answerer.answer(error, attachedTo(request)?.gate.realm);
    if (made === undefined) throw error;
    return send(reply, made);
  };
}
