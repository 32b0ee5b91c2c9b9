/**
 * The options of every guard and adapter, checked once when it is built,
 * with the same checks and the same messages everywhere: a guard's
 * (`requireAuth`, `withAuth`, an adapter's `svcAuth`), a route's
 * (`requirePermission`) and an error handler's.
 * @module
 */
import { SvcAuthError, type IssueInput } from '../errors';
import type { Permission } from '../core/vocabulary';
import { isRealm } from './errors';
import { guardOnError } from './answer';
import { GUARD_KEYS, finish, makeGate, makeRoute, readOptions, type GuardOptions, type GuardParts, type RouteCheck } from './gate';

/**
 * What a guard checks beyond authentication. Give `permission` and `resource`
 * together to authorize every request; leave all three out to authenticate
 * only. `R` is your framework's request type, so that `resource` can read
 * route parameters: `(req: express.Request) => \`${req.params.org}/${req.params.repo}\``.
 *
 * @example
 * ```ts
 * const check: AuthCheck<Request> = { permission: 'repo:read', resource: () => 'acme/web', realm: 'acme' };
 * ```
 */
export interface AuthCheck<R> extends Omit<GuardOptions<R>, 'optional'> {
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
  /**
   * The address of the connection's peer, for `allowedIps` and the last-used
   * addresses: needed for a fetch `Request`, which carries none (Bun:
   * `server.requestIP(req)?.address`); a node request's socket is read when it
   * is absent. See `AdmissionOptions.clientAddress`.
   */
  clientAddress?: (req: R) => string | undefined;
}

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

const CHECK_KEYS = ['permission', 'resource', 'thing', ...GUARD_KEYS.filter((k) => k !== 'optional')];

/**
 * @internal a guard's parts; throws `ValidationError` on misuse. `withRoute`:
 * the options of `requireAuth`/`withAuth` (a permission, no `optional`), else
 * those of an adapter's `svcAuth`.
 */
export function checkedGuard<R>(auth: unknown, options: unknown, withRoute: boolean): GuardParts<R> {
  const issues: IssueInput[] = [];
  const rec = readOptions(options, withRoute ? CHECK_KEYS : GUARD_KEYS, issues);
  const gate = makeGate(auth, rec, issues);
  const route = withRoute ? makeRoute<R>(rec, issues, false) : undefined;
  finish(issues);
  return { gate, route };
}

/** @internal an adapter's permission check; throws `ValidationError` on misuse. */
export function checkedRoute<R>(permission: Permission, options: PermissionOptions<R>): RouteCheck<R> {
  const issues: IssueInput[] = [];
  const rec = readOptions(options, ['resource', 'thing'], issues);
  if (options === undefined) issues.push({ path: 'options', message: 'is required: { resource: (req) => "org/repo" }' });
  const route = makeRoute<R>({ ...rec, permission }, issues, true);
  finish(issues);
  return route as RouteCheck<R>;
}

/** @internal an error handler's checked options; `onError` never throws. Throws `ValidationError` on misuse. */
export function checkedErrors(options: ErrorHandlerOptions | undefined): { realm: string | undefined; onError: (err: unknown) => void } {
  const issues: IssueInput[] = [];
  const rec = readOptions(options, ['realm', 'onError'], issues);
  if (rec.realm !== undefined && !isRealm(rec.realm))
    issues.push({ path: 'options.realm', message: 'must be 1 to 128 printable ASCII characters without " or \\' });
  if (rec.onError !== undefined && typeof rec.onError !== 'function')
    issues.push({ path: 'options.onError', message: 'must be a function' });
  finish(issues);
  return { realm: rec.realm as string | undefined, onError: guardOnError(rec.onError as ((err: unknown) => unknown) | undefined) };
}

/**
 * @internal an error of svc-auth's own family. `instanceof` runs a Proxy's
 * getPrototypeOf trap: an error object that throws when looked at is someone
 * else's (a bare 500), not a crash of the error handler.
 */
export function isOurs(err: unknown): boolean {
  try {
    return err instanceof SvcAuthError;
  } catch {
    return false;
  }
}
