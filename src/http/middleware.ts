/**
 * Small route guards over the `Auth` interface: one for node:http, connect and
 * Express-style handlers, one for fetch handlers. Options are checked once,
 * when the guard is built; each request then authenticates, optionally
 * authorizes, and maps every failure per H2 (see `gate.ts`).
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError, type IssueInput } from '../errors';
import type { Permission } from '../core/vocabulary';
import type { Principal } from '../core/policy';
import type { Auth } from '../service';
import { httpError } from './errors';
import {
  EXPIRATION_HEADER,
  GUARD_KEYS,
  admit,
  expiration,
  failed,
  finish,
  makeGate,
  makeRoute,
  permit,
  readOptions,
  report,
  type Gate,
  type GuardOptions,
  type RouteCheck,
} from './gate';
import { attach } from './attach';
import { toResponse, writeAnswer } from './respond';

/**
 * What a guard checks beyond authentication. Give `permission` and `resource`
 * together to authorize every request; leave all three out to authenticate
 * only. `R` is your framework's request type, so that `resource` can read
 * route parameters: `(req: express.Request) => \`${req.params.org}/${req.params.repo}\``.
 */
export interface AuthCheck<R> extends Omit<GuardOptions, 'optional'> {
  /** The permission the route needs, e.g. `'repo:read'`. */
  permission?: Permission;
  /**
   * The resource of this request: `"org/repo"` for repo permissions, `"org"`
   * for org permissions. Read it from route parameters, never from a URL a
   * framework rewrites (`req.url` under an Express mount drops the prefix).
   */
  resource?: (req: R) => string;
  /** The thing name of this request, if it touches one (checked against `allowedMatches`). */
  thing?: (req: R) => string | undefined;
}

/**
 * A node:http, connect or Express middleware. It never rejects: whatever
 * `next` throws or returns as a rejected promise is answered per H2.
 */
export type NodeMiddleware<R extends IncomingMessage = IncomingMessage> = (
  req: R,
  res: ServerResponse,
  next: (err?: unknown) => unknown,
) => Promise<void>;

/** A fetch handler that also receives the authenticated principal. */
export type AuthedFetchHandler = (req: Request, principal: Principal) => Response | Promise<Response>;

const CHECK_KEYS = ['permission', 'resource', 'thing', ...GUARD_KEYS.filter((k) => k !== 'optional')];

/** @internal a built guard: the shared gate and the route check, if any. */
export interface NodeGuardParts<R> {
  gate: Gate;
  route: RouteCheck<R> | undefined;
}

function build<R>(auth: Auth, options: AuthCheck<R> | undefined): NodeGuardParts<R> {
  const issues: IssueInput[] = [];
  const rec = readOptions(options, CHECK_KEYS, issues);
  const gate = makeGate(auth, rec, issues);
  const route = makeRoute<R>(rec, issues, false);
  if (route !== undefined && typeof auth === 'object' && auth !== null && typeof auth.authorize !== 'function') {
    issues.push({ path: 'auth', message: 'must have authorize() to check a permission' });
  }
  finish(issues);
  return { gate, route };
}

/**
 * A node middleware `(req, res, next)` that authenticates the bearer token,
 * checks `permission` on `resource(req)` (and `thing(req)`) when given, makes
 * the principal available through {@link principalOf}, and calls `next()`.
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
  return nodeGuard(build(auth, options));
}

/** @internal the node middleware over built parts (the dev server builds its own gate). */
export function nodeGuard<R extends IncomingMessage>({ gate, route }: NodeGuardParts<R>): NodeMiddleware<R> {
  return async (req, res, next) => {
    const admitted = await admit(gate, req);
    if ('answer' in admitted) return writeAnswer(res, admitted.answer);
    const { principal } = admitted;
    if (route !== undefined) {
      const refused = permit(gate, principal, route, req);
      if (refused !== undefined) return writeAnswer(res, refused);
    }
    attach(req, gate, principal);
    const expires = expiration(gate, principal);
    if (expires !== undefined && !res.headersSent) res.setHeader(EXPIRATION_HEADER, expires);
    try {
      // Await whatever next returns: an async handler's rejection is answered here
      // instead of escaping as an unhandled rejection that ends the process.
      await next();
    } catch (err) {
      writeAnswer(res, failed(gate, err));
    }
  };
}

/**
 * Wraps a fetch handler `(req, principal) => Response`: authenticates the
 * bearer token, checks `permission` on `resource(req)` (and `thing(req)`) when
 * given, then calls the handler. Failures, including errors the handler
 * throws (say a `NotFoundError`), become the H2 answer.
 *
 * @throws ValidationError when `auth`, `handler` or the options are not usable.
 *
 * @example
 * ```ts
 * import { withAuth } from 'svc-auth';
 * const head = withAuth(auth, async (req, principal) => Response.json({ user: principal.userId }), {
 *   permission: 'repo:read',
 *   resource: (req) => new URL(req.url).pathname.split('/').slice(3, 5).join('/'),
 * });
 * const res = await head(new Request('http://localhost/api/repos/acme/web/head', { headers: { authorization: `Bearer ${token}` } }));
 * ```
 */
export function withAuth(auth: Auth, handler: AuthedFetchHandler, options?: AuthCheck<Request>): (req: Request) => Promise<Response> {
  const { gate, route } = build(auth, options);
  if (typeof handler !== 'function') {
    throw new ValidationError([{ path: 'handler', message: 'must be a function (req, principal) => Response' }]);
  }
  return async (req) => {
    const admitted = await admit(gate, req);
    if ('answer' in admitted) return toResponse(admitted.answer);
    const principal = admitted.principal as Principal;
    if (route !== undefined) {
      const refused = permit(gate, principal, route, req);
      if (refused !== undefined) return toResponse(refused);
    }
    attach(req, gate, principal);
    let res: Response;
    try {
      const out: unknown = await handler(req, principal);
      if (!(out instanceof Response)) {
        report(gate, new ValidationError([{ path: 'handler', message: 'did not return a Response' }]));
        return toResponse(httpError(undefined));
      }
      res = out;
    } catch (err) {
      return toResponse(failed(gate, err));
    }
    return withExpiration(res, expiration(gate, principal));
  };
}

// Some Responses (Response.redirect, a proxied fetch answer) have immutable headers: copy those.
function withExpiration(res: Response, expires: string | undefined): Response {
  if (expires === undefined) return res;
  try {
    res.headers.set(EXPIRATION_HEADER, expires);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    copy.headers.set(EXPIRATION_HEADER, expires);
    return copy;
  }
}
