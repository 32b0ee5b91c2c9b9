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
import type { Context, Env, ErrorHandler, MiddlewareHandler, Next } from 'hono';
import type { Principal } from '../../core/policy';
import type { Auth } from '../../service';
import type { Permission } from '../../core/vocabulary';
import { adapterKit, type AdmissionOptions, type ErrorHandlerOptions, type PermissionOptions } from '../../http';

export type { AdmissionOptions, ErrorHandlerOptions, PermissionOptions, GuardOptions } from '../../http';

/** The Hono environment {@link svcAuth} provides: `c.var.principal`. */
export type PrincipalEnv = { Variables: { principal: Principal } };
/** The environment of an `optional: true` {@link svcAuth}: the principal may be `null`. */
export type OptionalPrincipalEnv = { Variables: { principal: Principal | null } };

// An answer replaces whatever the context holds. Hono merges the headers of the
// context's current response into any response set after it, so that response
// is cleared first: the kit passes on the headers that stay (CORS, the expiry).
function replace(c: Context, res: Response): Response {
  c.res = undefined;
  c.res = res;
  return res;
}

/** What a runtime hands Hono as `c.env`, as far as the peer address goes. */
interface ConnEnv {
  /** @hono/node-server: the node request. */
  readonly incoming?: { readonly socket?: { readonly remoteAddress?: unknown } };
  /** Bun: the server, which knows each request's peer. */
  readonly requestIP?: (req: Request) => { readonly address?: unknown } | null;
  /** Deno.serve: the handler info. */
  readonly remoteAddr?: { readonly hostname?: unknown };
}

/** The peer address the runtime hands over (node-server, Bun, Deno), or `undefined`; never throws past the kit. */
function peerAddress(c: Context): string | undefined {
  const env = c.env as ConnEnv | undefined;
  const node = env?.incoming?.socket?.remoteAddress;
  if (typeof node === 'string') return node;
  if (typeof env?.requestIP === 'function') {
    const bun = env.requestIP(c.req.raw)?.address;
    if (typeof bun === 'string') return bun;
  }
  const deno = env?.remoteAddr?.hostname;
  return typeof deno === 'string' ? deno : undefined;
}

const kit = adapterKit('hono', {
  request: (c: Context) => c.req.raw,
  address: peerAddress,
  set(c: Context, principal: Principal | null) {
    c.set('principal', principal);
  },
  header(c: Context, name: string, value: string) {
    c.header(name, value);
  },
  headers: (c: Context) => c.res.headers,
  write: (c: Context, status, headers, body) => replace(c, new Response(JSON.stringify(body), { status, headers })),
  own(c: Context, err, kept) {
    const res = ownResponse(err);
    if (res === undefined) return undefined;
    try {
      for (const [name, value] of Object.entries(kept)) if (!res.headers.has(name)) res.headers.append(name, value);
    } catch {
      // Headers that cannot be changed: the answer goes without the kept ones.
    }
    return replace(c, res);
  },
});

/**
 * Hono middleware that authenticates the `Authorization: Bearer` credential
 * and sets the `principal` variable (`c.var.principal`, `c.get('principal')`).
 * No credential: 401 with `WWW-Authenticate: Bearer realm="svc"` (with
 * `optional: true`, the principal is `null` instead); a bad, expired or
 * revoked credential: 401 `invalid_token`. On success it sets
 * `Svc-Token-Expiration` unless `expirationHeader: false`. The client
 * address (for `allowedIps` and last-used addresses) is the peer that
 * `@hono/node-server`, Bun or Deno hand over; elsewhere give `clientAddress`.
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
export function svcAuth(auth: Auth, options: AdmissionOptions<Context> & { optional: true }): MiddlewareHandler<OptionalPrincipalEnv>;
export function svcAuth(auth: Auth, options?: AdmissionOptions<Context>): MiddlewareHandler<PrincipalEnv>;
export function svcAuth(auth: Auth, options?: AdmissionOptions<Context>): MiddlewareHandler {
  const guard = kit.admission(auth, options);
  // Hono hands an Error to app.onError itself; what still escapes next() (a thrown non-Error, an
  // onError that threw) is answered, so this middleware never rejects.
  const onward = (c: Context, admitted: Admitted, next: Next): Promise<Response | undefined> =>
    'answer' in admitted ? Promise.resolve(admitted.answer) : proceed(next, (err) => guard.fail(c, err));
  // Not `async`: Hono awaits what a middleware returns, and an async function's own promise and
  // await were a share of a guarded request. A hot token on an in-process store is admitted at once.
  const handler: MiddlewareHandler<OptionalPrincipalEnv> = (c, next) => {
    const got = guard.admit(c, c);
    return got instanceof Promise ? got.then((admitted) => onward(c, admitted, next)) : onward(c, got, next);
  };
  return handler as MiddlewareHandler;
}

type Admitted = Awaited<ReturnType<ReturnType<typeof kit.admission>['admit']>>;

/** `next()`, with whatever it throws or rejects with answered by `fail`: never rejects. */
function proceed(next: Next, fail: (err: unknown) => Response): Promise<Response | undefined> {
  try {
    return next().then(NOTHING, fail);
  } catch (err) {
    return Promise.resolve(fail(err));
  }
}

const NOTHING = (): undefined => undefined;

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
  const route = kit.permission<Context<E, P>>(permission, options);
  // Not `async`, as svcAuth; permit throws when no svcAuth admitted this request: app.onError answers a bare 500.
  return (c, next) => {
    let refused: Response | undefined;
    try {
      refused = route.permit(c, c);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, as an async function rejects with it
      return Promise.reject(err);
    }
    return refused !== undefined ? Promise.resolve(refused) : proceed(next, (err) => route.fail(c, c, err));
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
  const errors = kit.errors(options);
  return (err, c) => errors.answer(c, c, err) ?? errors.internal(c, c, err);
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
