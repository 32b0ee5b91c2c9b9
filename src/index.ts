/**
 * svc-auth: personal access tokens, scopes and roles for TypeScript services.
 * Everything public is re-exported here by name, layer by layer (see the layer table in docs/concepts.md);
 * `svc-auth/postgres` and `svc-auth/testing` hold the optional parts.
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
export {
  PERMISSIONS,
  ROLES,
  ROLE_TABLE,
  isPermission,
  isRoleName,
  type Permission,
  type RoleName,
  type RoleExpansion,
} from './core/vocabulary';

// 2 scopes
export {
  parseScopeFlags,
  parseScopesJson,
  normalizeScopes,
  formatScopeFlags,
  isFlagExpressible,
  checkPattern,
  parseResource,
  isValidThingName,
  LIMITS,
  type Scope,
  type ScopeEntry,
  type ResourceRef,
} from './core/scopes';

// 3 policy
export {
  createGrant,
  compileLayer,
  authorize,
  canEverHold,
  Grant,
  CompiledLayer,
  type GrantInput,
  type Decision,
  type DenyReason,
  type Principal,
  type UserRoles,
} from './core/policy';

// 4 tokens
export {
  generateKeyRing,
  importKeyRing,
  TOKEN_PATTERN,
  findTokens,
  TOKEN_PREFIX,
  LIFETIMES,
  redactTokens,
  bearerFromRequest,
  parseAuthorization,
  MAX_BEARER_TOKEN_LENGTH,
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
  type AdmissionOptions,
  type HttpErrorBody,
  type AuthCheck,
} from './http';

// 8 guards for node:http and fetch
export { requireAuth, type NodeMiddleware } from './adapters/node';
export { withAuth, type AuthedFetchHandler } from './adapters/fetch';
