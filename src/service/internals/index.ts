/**
 * What an `Auth` keeps apart from its public methods, for the code built on it:
 * the one registry of per-`Auth` internals and `isAuth`.
 * @module
 */
export { isAuth, internalsOf, registerInternals, reportDenied } from './registry';
export type { AuthInternals, ClientAddressReader, DeniedReporter } from './registry';
export { sessionRecorder } from './records';
export type { ForeignSession, SessionRecorder } from './records';
export type { PrincipalState, ServiceContext } from './context';
