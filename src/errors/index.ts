/**
 * The one error family of svc-auth. Every failure the library reports is an
 * instance of {@link SvcAuthError} with a stable `code`, so callers branch on
 * `err.code` (or `instanceof`) and never on message text.
 *
 * This folder sits beneath every layer: it imports nothing outside itself.
 * @module
 */

export { SvcAuthError, type ErrorCode } from './base';
export { ValidationError, type IssueCode, type IssueInput, type ValidationIssue } from './validation';
export {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnavailableError,
  type AuthenticationReason,
  type ForbiddenReason,
} from './refusals';
