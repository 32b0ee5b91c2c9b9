/**
 * svc-auth: personal access tokens, scopes and roles for TypeScript services.
 * Everything is re-exported by name; see the README for the tour.
 * @module
 */
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
} from './errors';
export { PERMISSIONS, ROLES, ROLE_TABLE, isPermission, isRoleName, type Permission, type RoleName, type RoleExpansion } from './vocabulary';
