/**
 * svc-auth: personal access tokens, scopes and roles for TypeScript services.
 * The root is the server author's path: errors, key rings, `createAuth`, stores,
 * the HTTP helpers and guards, and the names of the service's contract. Re-exported
 * here by name, layer by layer (see docs/architecture.md). The subpaths hold the
 * other tasks: `svc-auth/policy` (the reference policy engine on its own),
 * `svc-auth/scanning` (finding tokens in text), `svc-auth/stores` (the file stores
 * and what a store implements), `svc-auth/leaks` (the leaked-token
 * endpoints), `svc-auth/postgres`, the framework
 * adapters, `svc-auth/mcp` and `svc-auth/testing`.
 * @module
 */

// Errors: one family, stable codes.
export {
  SvcAuthError,
  ValidationError,
  AuthenticationError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  UnavailableError,
  type ErrorCode,
  type ValidationIssue,
  type AuthenticationReason,
  type ForbiddenReason,
} from './errors';

// 1 vocabulary
export { PERMISSIONS, ROLES, type Permission, type RoleName } from './core/vocabulary';

// 2 scopes
export { parseScopeFlags, parseScopesJson, normalizeScopes, type Scope, type ScopeEntry } from './core/scopes';

// 3 policy
export { createGrant, authorize, Grant, type Decision, type Principal, type UserRoles } from './core/policy';

// 4 tokens
export {
  generateKeyRing,
  importKeyRing,
  TOKEN_PATTERN,
  bearerFromRequest,
  type BearerRequest,
  type NodeLikeRequest,
  type TrustedIssuer,
  type KeyRing,
  type KeyAlgorithm,
  type JWK,
} from './tokens';

// 5 stores (the file stores and what a store author implements are in svc-auth/stores)
export { MemoryTokenStore, type TokenStore } from './stores';

// 6 service
export {
  createAuth,
  type Auth,
  type AuthOptions,
  type MembershipSource,
  type TokenApi,
  type TokenInfo,
  reportDenied,
  type AuthEvent,
  type AuthEventHook,
} from './service';

// 7 http
export {
  errorAnswer,
  decisionError,
  errorResponse,
  sendError,
  sendJson,
  principalOf,
  EXPIRATION_HEADER,
  type ErrorAnswer,
  type ErrorAnswerOptions,
  type GuardOptions,
  type GuardDecision,
  type AdmissionOptions,
  type ErrorAnswerBody,
  type ErrorAnswerReason,
  type AuthCheck,
} from './http';

// 8 guards for node:http and fetch
export { requireAuth, type NodeMiddleware } from './adapters/node';
export { withAuth, type AuthedFetchHandler } from './adapters/fetch';

// Leaked tokens: `auth.reportLeaked` takes a report; its options, outcome and the HTTP endpoints are in svc-auth/leaks (docs/leaks.md)
export type { LeakReport } from './service';
