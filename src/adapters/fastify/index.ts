/**
 * `svc-auth/fastify`: a Fastify 5 plugin (built with `fastify-plugin`, bundled
 * into this entry) and a `preHandler` per route.
 *
 * - `app.register(svcAuth, { auth })` authenticates every request and decorates `request.principal`.
 * - {@link requirePermission} decides a route with `auth.authorize` on `request.params`.
 * - {@link errorHandler} answers any `SvcAuthError` a route throws per H2, and any other error with a
 *   bare 500: `app.setErrorHandler(errorHandler())`.
 *
 * Every answer goes through `reply`, so CORS headers other plugins set (for
 * example `@fastify/cors`) stay on 401 and 403; other headers set before a
 * refusal or an error are dropped, as on node:http. `fastify` is an optional
 * peer dependency: install it yourself.
 * @module
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal } from '../../core/policy';
import type { Auth } from '../../service';
import type { Permission } from '../../core/vocabulary';
import { adapterKit, type AdmissionOptions, type ErrorHandlerOptions, type PermissionOptions } from '../../http';

export type { AdmissionOptions, ErrorHandlerOptions, PermissionOptions, GuardOptions } from '../../http';

/**
 * A switch for the type of `request.principal`, by declaration merging. Left
 * empty, `request.principal` is a `Principal`. When the plugin runs with
 * `optional: true` anywhere in your app, say so here, and `request.principal`
 * becomes `Principal | null` everywhere (as `@fastify/jwt` types `request.user`).
 *
 * @example
 * not-checked: a module augmentation changes the type for the whole program it is in
 * ```ts
 * declare module 'svc-auth/fastify' {
 *   interface SvcAuthTypes {
 *     optional: true;
 *   }
 * }
 * ```
 */
export interface SvcAuthTypes {} // eslint-disable-line @typescript-eslint/no-empty-object-type -- empty until a user merges `optional: true` into it

/** The type of `request.principal`: `Principal`, or `Principal | null` once {@link SvcAuthTypes} says `optional: true`. */
export type RequestPrincipal = SvcAuthTypes extends { optional: true } ? Principal | null : Principal;

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set by the svc-auth/fastify plugin: the authenticated principal. With
     * `optional: true` it is `null` when the request carried no credential
     * (declare that in {@link SvcAuthTypes} to have it typed so).
     */
    principal: RequestPrincipal;
  }
}

/** Options of the {@link svcAuth} plugin: the `Auth` to use, and the options every guard shares. */
export interface SvcAuthPluginOptions extends AdmissionOptions<FastifyRequest> {
  /** What `createAuth` returned. */
  auth: Auth;
}

const kit = adapterKit('fastify', {
  // On the raw request, so that principalOf(request.raw) answers as its type promises.
  request: (request: FastifyRequest) => request.raw,
  set(request: FastifyRequest, principal: Principal | null) {
    request.principal = principal as RequestPrincipal;
  },
  header(reply: FastifyReply, name: string, value: string) {
    reply.header(name, value);
  },
  headers: (reply: FastifyReply) => headersOf(reply),
  write(reply: FastifyReply, status, headers, body) {
    // The answer replaces the response, on the reply and on the raw one below
    // it: the kit passed on the headers that stay.
    try {
      for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
      for (const name of reply.raw.getHeaderNames()) reply.raw.removeHeader(name);
    } catch {
      // A response that cannot list its headers still gets its status and body.
    }
    return reply.code(status).headers(headers).send(body);
  },
  // Hand a 5xx to the app's own logger, as Fastify's default error handler would have.
  log(request: FastifyRequest, err, status) {
    request.log.error({ err }, `svc-auth: request failed, answered ${status}`);
  },
});

// What the reply and the raw response below it hold, as text.
function headersOf(reply: FastifyReply): [string, string][] {
  const text = (v: unknown): string => (Array.isArray(v) ? v.join(', ') : String(v));
  const out = Object.entries(reply.getHeaders()).map(([name, value]): [string, string] => [name, text(value)]);
  for (const name of reply.raw.getHeaderNames()) out.push([name, text(reply.raw.getHeader(name))]);
  return out;
}

// A foreign error's own status, read without trusting its getters.
function statusOf(err: unknown): number | undefined {
  try {
    const code = (err as { statusCode?: unknown }).statusCode;
    return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

// Async so that fastify reports a bad option as a rejected register(), with nothing to await inside.
// eslint-disable-next-line @typescript-eslint/require-await
const plugin: FastifyPluginAsync<SvcAuthPluginOptions> = async (app, options) => {
  const { auth, ...rest } = options ?? {};
  const guard = kit.admission(auth, rest);
  // null until the hook runs (the type says Principal: see SvcAuthTypes).
  app.decorateRequest('principal', null as unknown as RequestPrincipal);
  // A hook with `done`: a hot token on an in-process store is admitted in this turn, with no promise. A
  // refusal is already sent (reply.send), and a hook that answered does not call done.
  app.addHook('onRequest', (request, reply, done) => {
    const admitted = guard.admit(request, reply);
    if (!(admitted instanceof Promise)) {
      if (!('answer' in admitted)) done();
      return;
    }
    admitted.then(
      (a) => {
        if (!('answer' in a)) done();
      },
      (err: unknown) => done(err instanceof Error ? err : new Error('svc-auth: admission failed')),
    );
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
 * `thing(request)`). Read both from `request.params`: given as a route's
 * `preHandler`, the callbacks are typed by the route's own generic
 * (`app.get<{ Params: ... }>`), with no annotation. A denial is 403
 * `insufficient_scope` with the reason in the body; an invalid resource is
 * 400; no principal (an `optional` plugin saw no credential) is 401.
 *
 * @throws ValidationError when `permission` is not a permission or `resource` is missing.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { requirePermission, svcAuth } from 'svc-auth/fastify';
 * const app = Fastify();
 * await app.register(svcAuth, { auth });
 * app.get<{ Params: { org: string; repo: string } }>('/repos/:org/:repo/head', {
 *   preHandler: requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }),
 * }, async () => ({ head: 'abc123' }));
 * ```
 */
export function requirePermission<G extends RouteGenericInterface = RouteGenericInterface>(
  permission: Permission,
  options: PermissionOptions<FastifyRequest<G>>,
): (request: FastifyRequest<G>, reply: FastifyReply, done: (err?: Error) => void) => void {
  const route = kit.permission<FastifyRequest<G>>(permission, options);
  // A hook with `done`, not an async one: Fastify awaits an async hook's promise, a microtask per request
  // for a decision made in this turn. A refusal is already sent (reply.send): a hook that answered does not call done.
  return (request, reply, done) => {
    let refused: FastifyReply | undefined;
    try {
      refused = route.permit(request, reply);
    } catch (err) {
      // No svcAuth admitted this request: the error handler answers a bare 500.
      done(err instanceof Error ? err : new Error('svc-auth: requirePermission failed'));
      return;
    }
    if (refused === undefined) done();
  };
}

/**
 * A Fastify error handler, `app.setErrorHandler(errorHandler())`: a
 * `SvcAuthError` a route throws is answered per H2 (JSON, status,
 * `WWW-Authenticate` on 401/403, `Retry-After` on 503). An error carrying a
 * 4xx `statusCode` (Fastify's own: schema validation, body parsing, 413,
 * 415; `@fastify/sensible`'s `httpErrors`) keeps Fastify's answer, whose
 * message is meant for the client. Anything else is a bare
 * `500 {"error":"internal","message":"internal error"}` (or the 5xx status
 * it carries): its message may quote a password or a token, so it goes to
 * `request.log` and to the `onError` option, never to the client. Headers a
 * route set before it threw are dropped from the answer, except CORS ones and
 * `Svc-Token-Expiration`.
 *
 * @throws ValidationError when the options are not usable.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { errorHandler } from 'svc-auth/fastify';
 * const app = Fastify();
 * app.setErrorHandler(errorHandler({ onError: (err) => console.error(err) }));
 * ```
 */
export function errorHandler(
  options?: ErrorHandlerOptions,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  const errors = kit.errors(options);
  return (error, request, reply) => {
    const made = errors.answer(request, reply, error);
    if (made !== undefined) return made;
    const status = statusOf(error);
    // Rethrown, a client error goes on to Fastify's default handler.
    if (status !== undefined && status >= 400 && status <= 499) throw error;
    return errors.internal(request, reply, error, status);
  };
}
