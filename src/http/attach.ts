/**
 * Which principal a guard admitted on a request object: set by every guard
 * and adapter, read by {@link principalOf} and the adapters' error handlers.
 * @module
 */
import { AuthenticationError } from '../errors';
import type { Principal } from '../core/policy';
import type { BearerRequest } from '../tokens';
import type { Gate } from './gate';

/** @internal what a guard attached to a request. */
export interface Attached {
  readonly gate: Gate;
  readonly principal: Principal | null;
}

// A module-private symbol on the request, not a WeakMap: a WeakMap entry per
// request costs an ephemeron in every GC, which under load was a fifth of the
// guard's cost. Only this module holds the symbol, so no one else can set it;
// a request object that cannot take a property (frozen) uses the WeakMap.
const ATTACHED = Symbol('svc-auth.attached');
const sealed = new WeakMap<object, Attached>();

type Carrier = { [ATTACHED]?: Attached };

/** @internal remember who a guard admitted on this request object. */
export function attach(req: object, gate: Gate, principal: Principal | null): void {
  const value: Attached = { gate, principal };
  if (Object.isExtensible(req) || Object.prototype.hasOwnProperty.call(req, ATTACHED)) {
    try {
      (req as Carrier)[ATTACHED] = value;
      return;
    } catch {
      // A proxy or an accessor refused the property: fall through.
    }
  }
  sealed.set(req, value);
}

/** @internal what a guard attached to this request object, if any. */
export function attachedTo(req: unknown): Attached | undefined {
  if (typeof req !== 'object' || req === null) return undefined;
  const own = Object.prototype.hasOwnProperty.call(req, ATTACHED) ? (req as Carrier)[ATTACHED] : undefined;
  return own ?? sealed.get(req);
}

/**
 * The principal a guard ({@link requireAuth}, {@link withAuth} or an
 * adapter's `svcAuth`) attached to this request.
 *
 * @throws AuthenticationError reason `missing` when no guard authenticated this
 *   request (or an `optional` guard saw no credential): fails closed.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { principalOf, requireAuth } from 'svc-auth';
 * const guard = requireAuth(auth);
 * createServer((req, res) => guard(req, res, () => {
 *   res.end(JSON.stringify({ user: principalOf(req).userId }));
 * })).listen(0, '127.0.0.1');
 * ```
 */
export function principalOf(req: BearerRequest): Principal {
  const p = attachedTo(req)?.principal;
  if (p === undefined || p === null) throw new AuthenticationError('missing', 'no guard authenticated this request');
  return p;
}
