/**
 * `svc-auth/fastify`: a Fastify 5 plugin and a `preHandler` per route.
 * @module
 */
export {
  svcAuth,
  requirePermission,
  errorHandler,
  type SvcAuthTypes,
  type RequestPrincipal,
  type SvcAuthPluginOptions,
  type ErrorHandlerOptions,
  type PermissionOptions,
  type GuardOptions,
  type AdmissionOptions,
} from '../adapters/fastify';
