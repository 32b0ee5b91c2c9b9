/**
 * The fetch guard (`Request` -> `Response`: Bun, Deno, workers, Next.js route
 * handlers): a thin translation over the adapter kit of the HTTP layer. A
 * fetch handler has no response before it returns, so the headers the kit sets
 * on admission wait in a small record and go on the handler's `Response`.
 * @module
 */
import { ValidationError } from '../../errors';
import type { Principal } from '../../core/policy';
import type { Auth } from '../../service';
import { adapterKit, answerResponse, type AuthCheck } from '../../http';

/** A fetch handler that also receives the authenticated principal. */
export type AuthedFetchHandler = (req: Request, principal: Principal) => Response | Promise<Response>;

/** Headers set on admission, waiting for the handler's `Response`. */
type Pending = Record<string, string>;

const kit = adapterKit('fetch', {
  request: (req: Request) => req,
  header(pending: Pending, name: string, value: string) {
    pending[name] = value;
  },
  // No response exists before the handler's: nothing was set that an error answer could keep.
  headers: () => [],
  write: (_pending: Pending, status, headers, body) => answerResponse({ status, headers, body }),
});

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
  const guard = kit.guard(auth, options);
  if (typeof handler !== 'function') {
    throw new ValidationError([{ path: 'handler', message: 'must be a function (req, principal) => Response' }]);
  }
  return async (req) => {
    const pending: Pending = {};
    // At once for a hot token on an in-process store: no await, no microtask.
    const got = guard.admit(req, pending);
    const admitted = got instanceof Promise ? await got : got;
    if ('answer' in admitted) return admitted.answer;
    let res: Response;
    try {
      const out: unknown = await handler(req, admitted.principal as Principal);
      if (!(out instanceof Response)) {
        return guard.internal(pending, new ValidationError([{ path: 'handler', message: 'did not return a Response' }]));
      }
      res = out;
    } catch (err) {
      return guard.fail(pending, err);
    }
    return withHeaders(res, pending);
  };
}

// Some Responses (Response.redirect, a proxied fetch answer) have immutable headers: copy those.
function withHeaders(res: Response, pending: Pending): Response {
  let out = res;
  for (const [name, value] of Object.entries(pending)) {
    try {
      out.headers.set(name, value);
    } catch {
      out = new Response(out.body, out);
      out.headers.set(name, value);
    }
  }
  return out;
}
