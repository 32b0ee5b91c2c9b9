/**
 * The service's side door: what an `Auth` keeps apart from its public methods,
 * for the code built on it. Not public (nothing here is exported from the
 * package root), and each name has one kind of user:
 *
 * - `isAuth`: every edge that takes an `auth` option (the guards and adapters
 *   of `http`, `/mcp`, the leak endpoints, the authorization server), when it
 *   is built. One check against one registry, never the methods an object has:
 *   a copy, a Proxy or a look-alike of an `Auth` decides by rules of its own.
 * - `internalsOf(auth).records`: the authorization server of `svc-auth/oauth`
 *   only. It mints its access tokens itself and records each grant and token
 *   here as a session, so that `authenticate` reads them like sessions (T5) and
 *   revoking a grant ends its tokens (T6). Only code that holds the `Auth` can
 *   write, and only session records: a public method would let any caller
 *   create sessions for any user.
 * - `internalsOf(auth).clientAddress`: code beside the guards that counts
 *   clients (the leak endpoints' rate limit), so that it reads `trustProxy` as
 *   `allowedIps` does.
 * - `reportDenied` (public through the service face): the guards' audit line.
 * - `ServiceContext`, `PrincipalState`: the parts of the service itself
 *   (`authenticate/`, `manage/`), which share one instance's store, clock and
 *   principals.
 *
 * `registerInternals` is `createAuth`'s alone: it writes each `Auth`'s record
 * once, for the frozen object it returns.
 * @module
 */
export { isAuth, internalsOf, registerInternals, reportDenied } from './registry';
export { sessionRecorder } from './records';
export type { PrincipalState, ServiceContext } from './context';
