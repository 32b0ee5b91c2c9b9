/**
 * What the framework adapters (svc-auth/express, /hono, /fastify) share
 * beyond the gate: building `svcAuth`, `requirePermission` and error-handler
 * options with the same checks and the same messages everywhere.
 * @module
 */
import { SvcAuthError, type IssueInput } from '../errors';
import type { Auth } from '../service';
import type { Permission } from '../core/vocabulary';
import { DEFAULT_REALM, httpError, isRealm, type HttpError } from './errors';
import { GUARD_KEYS, finish, makeGate, makeRoute, readOptions, type Gate, type RouteCheck } from './gate';

/**
 * Options of an adapter's `requirePermission`: where the resource (and the
 * thing name, if any) of a request is, read from the route's own parameters.
 *
 * @example
 * ```ts
 * const options: PermissionOptions<{ params: Record<string, string> }> = {
 *   resource: (req) => `${req.params.org}/${req.params.repo}`,
 * };
 * ```
 */
export interface PermissionOptions<R> {
  /**
   * `"org/repo"` for repo permissions, `"org"` for org permissions, from the
   * route's parameters. Never parse a URL a framework rewrites under a mount.
   */
  resource: (req: R) => string;
  /** The thing name the request touches, e.g. `Doc/readme`, checked against `allowedMatches`. */
  thing?: (req: R) => string | undefined;
}

/**
 * Options of an adapter's error handler.
 *
 * @example
 * ```ts
 * const options: ErrorHandlerOptions = { realm: 'acme', onError: (err) => console.error(err) };
 * ```
 */
export interface ErrorHandlerOptions {
  /** The realm of challenges on 401 and 403. Default: the realm of the `svcAuth` that admitted the request, else `'svc'`. */
  realm?: string;
  /** Sees the original error of every 5xx answer. */
  onError?: (err: unknown) => void;
}

/** @internal build an adapter's `svcAuth` gate; throws `ValidationError` on misuse. */
export function adapterGate(
  auth: Auth,
  options: unknown,
  extraKeys: readonly string[] = [],
): { gate: Gate; rest: Record<string, unknown> } {
  const issues: IssueInput[] = [];
  const rec = readOptions(options, [...GUARD_KEYS, ...extraKeys], issues);
  const gate = makeGate(auth, rec, issues);
  finish(issues);
  return { gate, rest: rec };
}

/** @internal build an adapter's permission check; throws `ValidationError` on misuse. */
export function adapterRoute<R>(permission: Permission, options: PermissionOptions<R>): RouteCheck<R> {
  const issues: IssueInput[] = [];
  const rec = readOptions(options, ['resource', 'thing'], issues);
  if (options === undefined) issues.push({ path: 'options', message: 'is required: { resource: (req) => "org/repo" }' });
  const route = makeRoute<R>({ ...rec, permission }, issues, true);
  finish(issues);
  return route as RouteCheck<R>;
}

/** @internal the checked options of an adapter's error handler. */
export interface ErrorAnswerer {
  /** The H2 answer for one of our errors, or `undefined` for someone else's; `onError` sees a 5xx. */
  answer(err: unknown, admittedRealm: string | undefined): HttpError | undefined;
  /**
   * The bare 500 for someone else's error (`status` may name another 5xx the error
   * carries); `onError` sees the error. Its message is never shown: it may quote a
   * password or a token that a database driver or a route put there.
   */
  internal(err: unknown, status?: number): HttpError;
}

/** @internal build an adapter's error handler options; throws `ValidationError` on misuse. */
export function errorAnswerer(options: ErrorHandlerOptions | undefined): ErrorAnswerer {
  const issues: IssueInput[] = [];
  const rec = readOptions(options, ['realm', 'onError'], issues);
  if (rec.realm !== undefined && !isRealm(rec.realm))
    issues.push({ path: 'options.realm', message: 'must be 1 to 128 printable ASCII characters without " or \\' });
  if (rec.onError !== undefined && typeof rec.onError !== 'function')
    issues.push({ path: 'options.onError', message: 'must be a function' });
  finish(issues);
  const realm = rec.realm as string | undefined;
  const onError = rec.onError as ((err: unknown) => void) | undefined;
  const report = (err: unknown): void => {
    if (onError === undefined) return;
    try {
      onError(err);
    } catch {
      // A failing logger must not turn an answer into a crash.
    }
  };
  return {
    answer(err, admittedRealm) {
      if (!isOurs(err)) return undefined;
      const made = httpError(err, { realm: realm ?? admittedRealm ?? DEFAULT_REALM });
      if (made.status >= 500) report(err);
      return made;
    },
    internal(err, status) {
      report(err);
      const made = httpError(undefined);
      if (status !== undefined && Number.isInteger(status) && status > 500 && status <= 599) made.status = status;
      return made;
    },
  };
}

// `instanceof` runs a Proxy's getPrototypeOf trap: an error object that throws
// when looked at is someone else's (a bare 500), not a crash of the error handler.
function isOurs(err: unknown): boolean {
  try {
    return err instanceof SvcAuthError;
  } catch {
    return false;
  }
}

/** @internal the error of a route guarded by `requirePermission` without `svcAuth` before it. */
export function notAdmitted(framework: string): Error {
  return new Error(`svc-auth/${framework}: requirePermission() needs svcAuth() to run first on this request`);
}
