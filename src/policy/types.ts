/**
 * Inputs of the policy layer.
 * @module
 */
import type { RoleName } from '../vocabulary';

/**
 * A user's memberships: a role per organization and per repository.
 * Keys compare case-insensitively.
 *
 * @example
 * ```ts
 * const roles: UserRoles = { orgs: { acme: 'editor' }, repos: { 'acme/secrets': 'viewer' } };
 * ```
 */
export interface UserRoles {
  /** Role per org name. */
  orgs?: Record<string, RoleName>;
  /** Role per `"org/repo"`. */
  repos?: Record<string, RoleName>;
}
