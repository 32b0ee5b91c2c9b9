/**
 * Small route guards over the `Auth` interface: one for node/Express/connect
 * handlers, one for fetch handlers. Options are checked once, when the guard
 * is built; each request then authenticates, optionally authorizes, and maps
 * every failure per H2.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AuthenticationError, ValidationError, type IssueInput } from '../errors';
import { isPermission, type Permission } from '../vocabulary';
import type { Principal } from '../policy/subject';
import type { Decision } from '../policy/decision';
import type { Auth } from '../service/types';
import { decisionError, httpError, type HttpError } from './errors';
import { toResponse, writeAnswer } from './respond';

/**
 * What a guard checks beyond authentication. Give `permission` and `resource`
 * together to authorize every request; leave all three out to authenticate only.
 */
export interface AuthCheck<R> {
  /** The permission the route needs, e.g. `'repo:read'`. */
  permission?: Permission;
  /** The resource of this request: `"org/repo"` for repo permissions, `"org"` for org permissions. */
  resource?: (req: R) => string;
  /** The thing name of this request, if it touches one (checked against `allowedMatches`). */
  thing?: (req: R) => string | undefined;
  /**
   * Called with the original error whenever the answer is a 5xx (a store outage,
   * a bug in a handler), so you can log what the client is never shown.
   */
  onError?: (err: unknown) => void;
}

/** An Express/connect-compatible middleware. It never rejects. */
export type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => Promise<void>;

/** A fetch handler that also receives the authenticated principal. */
export type AuthedFetchHandler = (req: Request, principal: Principal) => Response | Promise<Response>;

const principals = new WeakMap<object, Principal>();

/**
 * The principal a guard ({@link requireAuth} or {@link withAuth}) attached to
 * this request.
 *
 * @throws AuthenticationError reason `missing` when no guard accepted this request: fails closed.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { requireAuth, principalOf } from 'svc-auth';
 * const app = express();
 * app.get('/api/whoami', requireAuth(auth), (req, res) => {
 *   res.json({ user: principalOf(req).userId });
 * });
 * ```
 */
export function principalOf(req: IncomingMessage | Request): Principal {
  const p = typeof req === 'object' && req !== null ? principals.get(req) : undefined;
  if (p === undefined) throw new AuthenticationError('missing', 'no guard authenticated this request');
  return p;
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
 * app.get('/api/acme/web/head',
 *   requireAuth(auth, { permission: 'repo:read', resource: () => 'acme/web' }),
 *   (req, res) => res.json({ head: 'abc123', user: principalOf(req).userId }));
 * ```
 */
export function requireAuth(auth: Auth, options?: AuthCheck<IncomingMessage>): NodeMiddleware {
  const check = validate(auth, options);
  return async (req, res, next) => {
    const outcome = await guard(auth, check, req);
    if ('answer' in outcome) {
      writeAnswer(res, outcome.answer);
      return;
    }
    principals.set(req, outcome.principal);
    try {
      next();
    } catch (err) {
      // Express catches its handlers' errors itself; a bare connect-like chain may not.
      const answer = httpError(err);
      if (answer.status >= 500) report(check, err);
      writeAnswer(res, answer);
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
export function withAuth(
  auth: Auth,
  handler: AuthedFetchHandler,
  options?: AuthCheck<Request>,
): (req: Request) => Promise<Response> {
  const check = validate(auth, options);
  if (typeof handler !== 'function') {
    throw new ValidationError([{ path: 'handler', message: 'must be a function (req, principal) => Response' }]);
  }
  return async (req) => {
    const outcome = await guard(auth, check, req);
    if ('answer' in outcome) return toResponse(outcome.answer);
    principals.set(req, outcome.principal);
    try {
      const res: unknown = await handler(req, outcome.principal);
      if (res instanceof Response) return res;
      report(check, new ValidationError([{ path: 'handler', message: 'did not return a Response' }]));
      return toResponse(httpError(undefined));
    } catch (err) {
      const answer = httpError(err);
      if (answer.status >= 500) report(check, err);
      return toResponse(answer);
    }
  };
}

type Outcome = { principal: Principal } | { answer: HttpError };

async function guard<R extends IncomingMessage | Request>(auth: Auth, check: AuthCheck<R>, req: R): Promise<Outcome> {
  try {
    const principal = await auth.authenticateRequest(req);
    if (check.permission === undefined || check.resource === undefined) return { principal };
    const resource = check.resource(req);
    const thing = check.thing?.(req);
    const decision: Decision = auth.authorize(principal, resource, check.permission, thing);
    // Anything but an explicit allow is a denial: fail closed on a broken authorize.
    if (decision?.allowed === true) return { principal };
    return { answer: decisionError(decision) };
  } catch (err) {
    const answer = httpError(err);
    if (answer.status >= 500) report(check, err);
    return { answer };
  }
}

function report(check: AuthCheck<never>, err: unknown): void {
  if (check.onError === undefined) return;
  try {
    check.onError(err);
  } catch {
    // A failing logger must not turn an answer into a crash.
  }
}

const KEYS = new Set(['permission', 'resource', 'thing', 'onError']);

function validate<R>(auth: Auth, options: AuthCheck<R> | undefined): AuthCheck<R> {
  const issues: IssueInput[] = [];
  if (typeof auth !== 'object' || auth === null || typeof auth.authenticateRequest !== 'function') {
    issues.push({ path: 'auth', message: 'must be the object createAuth returned' });
  } else if (options?.permission !== undefined && typeof auth.authorize !== 'function') {
    issues.push({ path: 'auth', message: 'must have authorize() to check a permission' });
  }
  if (options === undefined) {
    if (issues.length > 0) throw new ValidationError(issues);
    return {};
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ValidationError([...issues, { path: 'options', message: 'must be an object' }]);
  }
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) issues.push({ path: `options.${key}`, message: 'is not a known option' });
  }
  const { permission, resource, thing, onError } = options;
  if (permission !== undefined && !isPermission(permission)) {
    issues.push({ path: 'options.permission', message: 'is not a permission' });
  }
  for (const [name, fn] of [['resource', resource], ['thing', thing], ['onError', onError]] as const) {
    if (fn !== undefined && typeof fn !== 'function') issues.push({ path: `options.${name}`, message: 'must be a function' });
  }
  if ((permission === undefined) !== (resource === undefined)) {
    issues.push({ path: 'options', message: 'give permission and resource together, or neither' });
  }
  if (thing !== undefined && permission === undefined) {
    issues.push({ path: 'options.thing', message: 'needs permission and resource' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  // A private copy: later changes to the caller's object cannot loosen the check.
  const check: AuthCheck<R> = {};
  if (permission !== undefined) check.permission = permission;
  if (resource !== undefined) check.resource = resource;
  if (thing !== undefined) check.thing = thing;
  if (onError !== undefined) check.onError = onError;
  return check;
}
