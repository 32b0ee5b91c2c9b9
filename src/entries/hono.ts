/**
 * `svc-auth/hono`: middleware for Hono.
 * @module
 */
export {
  svcAuth,
  requirePermission,
  onError,
  type PrincipalEnv,
  type OptionalPrincipalEnv,
  type ErrorHandlerOptions,
  type PermissionOptions,
  type GuardOptions,
  type AdmissionOptions,
} from '../adapters/hono';
