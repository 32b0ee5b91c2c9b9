/**
 * svc-auth: personal access tokens, scopes and roles for TypeScript services.
 * The root is the server author's path: errors, key rings, `createAuth`, stores,
 * the HTTP helpers and guards, and the names of the service's contract. Re-exported
 * here by name, layer by layer (see docs/architecture.md). The subpaths hold the
 * other tasks: `svc-auth/policy` (the reference policy engine on its own),
 * `svc-auth/scanning` (finding tokens in text), `svc-auth/postgres`, the framework
 * adapters, `svc-auth/mcp` and `svc-auth/testing`.
 *
 * Names marked `@deprecated` moved to a subpath; they stay here for the 0.x line.
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
  /** @deprecated Import from 'svc-auth/policy'. */
  ROLE_TABLE,
  /** @deprecated Import from 'svc-auth/policy'. */
  isPermission,
  /** @deprecated Import from 'svc-auth/policy'. */
  isRoleName,
  type Permission,
  type RoleName,
  /** @deprecated Import from 'svc-auth/policy'. */
  type RoleExpansion,
} from './core/vocabulary';

// 2 scopes
export {
  parseScopeFlags,
  parseScopesJson,
  normalizeScopes,
  /** @deprecated Import from 'svc-auth/policy'. */
  formatScopeFlags,
  /** @deprecated Import from 'svc-auth/policy'. */
  isFlagExpressible,
  /** @deprecated Import from 'svc-auth/policy'. */
  checkPattern,
  /** @deprecated Import from 'svc-auth/policy'. */
  parseResource,
  /** @deprecated Import from 'svc-auth/policy'. */
  isValidThingName,
  LIMITS,
  type Scope,
  type ScopeEntry,
  /** @deprecated Import from 'svc-auth/policy'. */
  type ResourceRef,
} from './core/scopes';

// 3 policy
export {
  createGrant,
  /** @deprecated Import from 'svc-auth/policy'. */
  compileLayer,
  authorize,
  /** @deprecated Import from 'svc-auth/policy'. */
  canEverHold,
  Grant,
  /** @deprecated Import from 'svc-auth/policy'. */
  CompiledLayer,
  /** @deprecated Import from 'svc-auth/policy'. */
  type GrantInput,
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
  /** @deprecated Import from 'svc-auth/scanning'. */
  findTokens,
  /** @deprecated Import from 'svc-auth/scanning'. */
  TOKEN_PREFIX,
  LIFETIMES,
  /** @deprecated Import from 'svc-auth/scanning'. */
  redactTokens,
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
  type PurgeOptions,
  type SessionPurge,
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

// Leaked tokens: revoked by whoever reports them, over HTTP or by GitHub secret scanning (docs/leaks.md)
export type { LeakReport, LeakOutcome, ReportLeakedOptions, TokenLeakedEvent } from './service';
export {
  credentialRevocationHandler,
  githubSecretScanningHandler,
  GITHUB_SECRET_SCANNING_KEYS_URL,
  type CredentialRevocationHandler,
  type CredentialRevocationOptions,
  type RevocationRateLimit,
  type GitHubSecretScanningHandler,
  type GitHubSecretScanningOptions,
  type GitHubPublicKeys,
  type GitHubFeedback,
} from './leaks';
