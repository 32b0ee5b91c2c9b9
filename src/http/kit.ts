/**
 * The adapter kit: what every guard and framework adapter does with a
 * request, written once. An adapter (`src/adapters/<framework>`) describes its
 * framework in a {@link Port} (where the request is, how a header is set, how
 * an answer is written) and makes about three calls: `admit` (a request ->
 * its principal, or the refusal written), `permit` (a route's permission ->
 * go on, or the refusal written) and `answer` (an error -> the answer
 * written). Everything else is decided here and in `gate.ts`, once: who is
 * admitted, where the principal goes, the expiry header, which headers
 * survive an error answer, and what `onError` hears.
 * @module
 */
import { AuthenticationError } from '../errors';
import type { Principal } from '../core/policy';
import type { Permission } from '../core/vocabulary';
import type { BearerRequest } from '../tokens';
import { DEFAULT_REALM, errorAnswer, type ErrorAnswer, type ErrorAnswerBody } from './errors';
import { attach, attachedTo } from './attach';
import { EXPIRATION_HEADER, admitted, expiration, failed, permit, refuse, report, type GuardParts } from './gate';
import { guardOnError } from './answer';
import {
  checkedErrors,
  checkedGuard,
  checkedRoute,
  isOurs,
  type AuthCheck,
  type ErrorHandlerOptions,
  type PermissionOptions,
} from './options';

/**
 * How an adapter reaches its framework: `Q` is what its middleware is given
 * as the request, `S` as the response, `Out` what writing an answer returns.
 * A port only reads and writes; the kit decides what.
 *
 * @example
 * ```ts
 * const port: Port<IncomingMessage, ServerResponse, ServerResponse> = {
 *   ...nodeResponse,
 *   request: (req) => req,
 * };
 * ```
 */
export interface Port<Q, S, Out> {
  /** The request `auth.authenticateRequest` reads, and the object the principal is attached to (what `principalOf` reads). */
  request(req: Q): BearerRequest;
  /** The connection's peer address when `request` carries none (a fetch `Request`): what the runtime hands over. */
  address?(req: Q): string | undefined;
  /** Hand the admitted principal to the framework (`req.principal`, `c.set('principal', …)`). */
  set?(req: Q, principal: Principal | null): void;
  /** Set a header on the response the request goes on to. */
  header(res: S, name: string, value: string): void;
  /** The headers the response holds now (an error answer keeps the CORS ones and the expiry). */
  headers(res: S): Iterable<readonly [string, string]>;
  /** Replace the response with an answer: this status, these headers and no others, this JSON body. Never throws. */
  write(res: S, status: number, headers: Record<string, string>, body: ErrorAnswerBody): Out;
  /**
   * The framework's own answer to an error that is not svc-auth's (Hono's
   * `HTTPException`), written over the response like `write`, with the `kept`
   * headers it lacks; `undefined` when the error carries none.
   */
  own?(res: S, err: unknown, kept: Record<string, string>): Out | undefined;
  /** The framework's own log of a 5xx that its error handler answers (Fastify's `request.log`). */
  log?(req: Q, err: unknown, status: number): void;
}

/** @internal what admitting a request came to: the principal (`null`: an `optional` guard saw no credential), or the refusal written. */
export type Admitted<Out> = { principal: Principal | null } | { answer: Out };

/** @internal a built guard: one call per request, and the answers to errors that follow it. */
export interface Guard<Q, S, Out> {
  /**
   * Authenticate (and, for a guard with a permission, authorize); set, attach, expiry header; or write the
   * refusal. At once when nothing had to wait, else a promise. Never rejects.
   */
  admit(req: Q, res: S): Admitted<Out> | Promise<Admitted<Out>>;
  /** An error thrown after admission (by the next middleware, the handler), answered per H2; `onError` sees a 5xx. */
  fail(res: S, err: unknown): Out;
  /** A bare 500 for a bug around the request (a handler that broke its contract); `onError` sees `err`. */
  internal(res: S, err: unknown): Out;
}

/** @internal a built `requirePermission`. */
export interface Route<Q, S, Out> {
  /**
   * Decide the route for the principal a guard admitted on this request:
   * `undefined` to go on, else the refusal written.
   * @throws Error when no guard admitted this request (a misconfiguration: fails closed).
   */
  permit(req: Q, res: S): Out | undefined;
  /** An error thrown after the route was allowed, answered per H2 with the admitting guard's options. */
  fail(req: Q, res: S, err: unknown): Out;
}

/** @internal a built error handler. */
export interface Errors<Q, S, Out> {
  /** svc-auth's error answered per H2, or the framework's own answer (`Port.own`); `undefined` when neither (nothing written). */
  answer(req: Q, res: S, err: unknown): Out | undefined;
  /** Someone else's error: a bare 500 (`status` may name another 5xx it carries); `onError` sees it. */
  internal(req: Q, res: S, err: unknown, status?: number): Out;
}

/** @internal the kit of one adapter: builders that check their options once (`ValidationError`). */
export interface Kit<Q, S, Out> {
  /** An adapter's `svcAuth`: admission only; `optional` allowed. */
  admission(auth: unknown, options: unknown): Guard<Q, S, Out>;
  /** A guard that also checks a permission (`requireAuth`, `withAuth`); `optional` is not an option. */
  guard<R extends Q>(auth: unknown, check: AuthCheck<R> | undefined): Guard<R, S, Out>;
  /** An adapter's `requirePermission`. */
  permission<R extends Q>(permission: Permission, options: PermissionOptions<R>): Route<R, S, Out>;
  /** An adapter's error handler. */
  errors(options: ErrorHandlerOptions | undefined): Errors<Q, S, Out>;
}

// CORS headers must survive, or a browser cannot even read the 401; so do
// the credential's expiry, which a guard set once the credential was accepted,
// and the DPoP nonce the client signs its next proof with.
const KEPT_ON_ERROR = /^(?:access-control-|vary$|svc-token-expiration$|dpop-nonce$)/i;

/**
 * @internal the headers set before a failure that stay on the error answer:
 * the CORS ones and the expiry. One rule for every guard and adapter: a
 * cookie, a cache header or an encoding that a route set before it threw must
 * not ride along with a 401, 403 or 500. Headers that cannot be read are none.
 */
function keptHeaders<S>(port: Pick<Port<unknown, S, unknown>, 'headers'>, res: S): Record<string, string> {
  const kept: Record<string, string> = {};
  try {
    for (const [name, value] of port.headers(res)) if (KEPT_ON_ERROR.test(name)) kept[name.toLowerCase()] = value;
  } catch {
    // A response that cannot list its headers: the answer goes without them.
  }
  return kept;
}

/** @internal write an error answer through a port, with the kept headers it does not set itself. Never throws. */
export function send<S, Out>(port: Pick<Port<unknown, S, Out>, 'headers' | 'write'>, res: S, answer: ErrorAnswer): Out {
  return port.write(res, answer.status, { ...keptHeaders(port, res), ...answer.headers }, answer.body);
}

/**
 * @internal the peer address of a request: the guard's `clientAddress`
 * option, else what the port knows, else `undefined` (authenticateRequest then
 * reads a node request's socket). A throwing function is "unknown", never a crash.
 */
function peerOf<Q>(
  gate: { readonly clientAddress: ((req: never) => string | undefined) | undefined },
  port: Port<Q, unknown, unknown>,
  req: Q,
): string | undefined {
  try {
    const given = gate.clientAddress === undefined ? undefined : (gate.clientAddress as (r: Q) => unknown)(req);
    if (typeof given === 'string') return given;
    if (gate.clientAddress !== undefined) return '';
    const own = port.address?.(req);
    return typeof own === 'string' ? own : undefined;
  } catch {
    return '';
  }
}

/** @internal the error of a route guarded by `requirePermission` without `svcAuth` before it. */
function notAdmitted(framework: string): Error {
  return new Error(`svc-auth/${framework}: requirePermission() needs svcAuth() to run first on this request`);
}

/**
 * @internal the kit of one adapter: `framework` names it in messages, `port`
 * reaches its objects.
 *
 * @example
 * ```ts
 * const kit = adapterKit('node', { ...nodeResponse, request: (req: IncomingMessage) => req });
 * const guard = kit.guard(auth, { permission: 'repo:read', resource: () => 'acme/web' });
 * const admitted = await guard.admit(req, res); // { principal } or { answer } (already written), at once or a promise
 * ```
 */
export function adapterKit<Q, S, Out>(framework: string, port: Port<Q, S, Out>): Kit<Q, S, Out> {
  function over<R extends Q>({ gate, route }: GuardParts<R>): Guard<R, S, Out> {
    /** A refusal before admission: answered, or (an `optional` guard, no credential) admitted as nobody. */
    function refusedNow(req: R, res: S, raw: BearerRequest, err: unknown): Admitted<Out> {
      if (gate.optional && err instanceof AuthenticationError && err.reason === 'missing') return admittedNow(req, res, raw, null);
      return { answer: send(port, res, refuse(gate, { error: err }, req)) };
    }

    /** The principal admitted: the route's permission, then the principal set and attached, and the headers. */
    function admittedNow(req: R, res: S, raw: BearerRequest, principal: Principal | null): Admitted<Out> {
      if (route !== undefined) {
        // permit tells onDecision what it decided, allowed or refused.
        const refused = permit(gate, principal, route, req);
        if (refused !== undefined) return { answer: send(port, res, refused) };
      } else if (gate.onDecision !== undefined) {
        admitted(gate, { principal }, req);
      }
      port.set?.(req, principal);
      attach(raw, gate, principal);
      const expires = expiration(gate, principal);
      if (expires !== undefined) port.header(res, EXPIRATION_HEADER, expires);
      const nonce = gate.nonceFor(raw);
      if (nonce !== undefined) port.header(res, 'dpop-nonce', nonce);
      return { principal };
    }

    return {
      // The admission sequence of every guard and adapter, in the request's own turn when nothing
      // waits (a hot token on an in-process store): no promise, no microtask. Never rejects.
      admit(req, res) {
        const raw = port.request(req);
        const peer = peerOf(gate, port, req);
        let got: Principal | Promise<Principal>;
        try {
          got = gate.authenticate(raw, peer);
        } catch (err) {
          return refusedNow(req, res, raw, err);
        }
        if (got instanceof Promise) {
          return got.then(
            (principal) => admittedNow(req, res, raw, principal),
            (err: unknown) => refusedNow(req, res, raw, err),
          );
        }
        try {
          return admittedNow(req, res, raw, got);
        } catch (err) {
          // What an async admit did with a throw: a rejection (none is expected; the adapters answer it).
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, as an async function rejects with it
          return Promise.reject(err);
        }
      },
      fail: (res, err) => send(port, res, failed(gate, err)),
      internal(res, err) {
        report(gate, err);
        return send(port, res, errorAnswer(undefined));
      },
    };
  }

  return {
    admission: (auth, options) => over<Q>(checkedGuard(auth, options, false)),
    guard: <R extends Q>(auth: unknown, check: AuthCheck<R> | undefined) => over<R>(checkedGuard<R>(auth, check, true)),
    permission<R extends Q>(permission: Permission, options: PermissionOptions<R>): Route<R, S, Out> {
      const route = checkedRoute<R>(permission, options);
      return {
        permit(req, res) {
          const admitted = attachedTo(port.request(req));
          if (admitted === undefined) throw notAdmitted(framework);
          const refused = permit(admitted.gate, admitted.principal, route, req);
          return refused === undefined ? undefined : send(port, res, refused);
        },
        fail(req, res, err) {
          const gate = attachedTo(port.request(req))?.gate;
          return send(port, res, gate === undefined ? errorAnswer(err) : failed(gate, err));
        },
      };
    },
    errors(options) {
      const { realm, onError } = checkedErrors(options);
      const log = guardOnError((req: Q, err: unknown, status: number) => port.log?.(req, err, status));
      const reported = (req: Q, err: unknown, status: number): void => {
        onError(err);
        log(req, err, status);
      };
      return {
        answer(req, res, err) {
          if (!isOurs(err)) return port.own?.(res, err, keptHeaders(port, res));
          const made = errorAnswer(err, { realm: realm ?? attachedTo(port.request(req))?.gate.realm ?? DEFAULT_REALM });
          if (made.status >= 500) reported(req, err, made.status);
          return send(port, res, made);
        },
        internal(req, res, err, status) {
          // Its message is never shown: it may quote a password or a token that a driver or a route put there.
          const made = errorAnswer(undefined);
          if (status !== undefined && Number.isInteger(status) && status > 500 && status <= 599)
            made.status = status as ErrorAnswer['status'];
          reported(req, err, made.status);
          return send(port, res, made);
        },
      };
    },
  };
}
