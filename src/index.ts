/**
 * svc-auth: personal access tokens, scopes and roles for TypeScript services.
 * The root is the server author's path: errors, key rings, `createAuth`, stores,
 * the HTTP helpers and guards, and the names of the service's contract. Re-exported
 * here by name, layer by layer (see docs/architecture.md). The subpaths hold the
 * other tasks: `svc-auth/policy` (the reference policy engine on its own),
 * `svc-auth/scanning` (finding tokens in text), `svc-auth/leaks` (the leaked-token
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
  formatIssuePath,
  type ValidationIssue,
  type IssueCode,
  type IssuePath,
  type AuthenticationReason,
  type ForbiddenReason,
} from './errors';

// 1 vocabulary
export { PERMISSIONS, ROLES, type Permission, type RoleName } from './core/vocabulary';

// 2 scopes
export { parseScopeFlags, parseScopesJson, normalizeScopes, LIMITS, type Scope, type ScopeEntry } from './core/scopes';

// 3 policy
export {
  createGrant,
  authorize,
  Grant,
  type Decision,
  type DenyReason,
  type IssuedBy,
  type Principal,
  type UserRoles,
} from './core/policy';

// 4 tokens
export {
  generateKeyRing,
  importKeyRing,
  TOKEN_PATTERN,
  LIFETIMES,
  bearerFromRequest,
  parseAuthorization,
  MAX_BEARER_TOKEN_LENGTH,
  type BearerRequest,
  type NodeLikeRequest,
  ISSUER_ALGORITHMS,
  type TrustedIssuer,
  type IssuerAlgorithm,
  type KeyRing,
  type KeyAlgorithm,
  type TokenKind,
  type Lifetime,
} from './tokens';

// 5 stores
export {
  MemoryTokenStore,
  MemoryMembershipStore,
  FileTokenStore,
  FileMembershipStore,
  type TokenStore,
  type TokenRecord,
  type InsertResult,
  type RecordKind,
  type MembershipStore,
  type Membership,
  type FileStoreOptions,
  type TokenUse,
  type UsedFrom,
  MAX_USED_FROM,
} from './stores';

// 6 service
export {
  createAuth,
  isIdentityWref,
  defaultIdentity,
  IDENTITY_PATTERN,
  type Auth,
  type AuthOptions,
  type MembershipSource,
  type TokenApi,
  type TokenInfo,
  type CreateTokenInput,
  type ListTokensOptions,
  type LastUse,
  type SweepOptions,
  type ExpiringToken,
  type RequestOrigin,
  type AuthenticateRequestOptions,
  type SessionApi,
  type SessionInfo,
  type FlushOptions,
  reportDenied,
  type AuthEvent,
  type AuthEventHook,
  type EventActor,
  type TokenCreatedEvent,
  type TokenRevokedEvent,
  type TokenExpiringEvent,
  type AuthFailedEvent,
  type AccessDeniedEvent,
} from './service';

// 7 http
export {
  httpError,
  decisionError,
  errorResponse,
  sendError,
  sendJson,
  principalOf,
  EXPIRATION_HEADER,
  type HttpError,
  type HttpErrorOptions,
  type GuardOptions,
  type GuardDecision,
  type AdmissionOptions,
  type HttpErrorBody,
  type AuthCheck,
} from './http';

// 8 guards for node:http and fetch
export { requireAuth, type NodeMiddleware } from './adapters/node';
export { withAuth, type AuthedFetchHandler } from './adapters/fetch';

// Leaked tokens: `auth.reportLeaked` and its event; the HTTP endpoints are in svc-auth/leaks (docs/leaks.md)
export type { LeakReport, LeakOutcome, ReportLeakedOptions, TokenLeakedEvent } from './service';
