/**
 * `svc-auth/express`: middleware for Express 4 and 5.
 * @module
 */
export {
  svcAuth,
  requirePermission,
  errorHandler,
  type SvcAuthTypes,
  type RequestPrincipal,
  type ErrorHandlerOptions,
  type PermissionOptions,
  type GuardOptions,
} from '../adapters/express';
