/**
 * The service layer (6): `createAuth` and the helpers its users need.
 * @module
 */
export { createAuth } from './auth';
export { isIdentityWref, IDENTITY_PATTERN, defaultIdentity } from './identity';
export type {
  Auth,
  AuthOptions,
  MembershipSource,
  TokenApi,
  TokenInfo,
  CreateTokenInput,
  ListTokensOptions,
  LastUse,
  SweepOptions,
  ExpiringToken,
  RequestOrigin,
  AuthenticateRequestOptions,
} from './contract';
export type { SessionApi, SessionInfo } from './contract';
export type { FlushOptions } from './events';
export { reportDenied } from './internals';
export type { LeakOutcome, LeakReport, ReportLeakedOptions } from './leaks';
export type {
  AuthEvent,
  AuthEventHook,
  EventActor,
  TokenCreatedEvent,
  TokenRevokedEvent,
  TokenExpiringEvent,
  AuthFailedEvent,
  AccessDeniedEvent,
  TokenLeakedEvent,
} from './events';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export { principalScopes, scopeNarrowing } from './authenticate';
export { guarded, readClock } from './deadlines';
export { isAuth, internalsOf } from './internals';
