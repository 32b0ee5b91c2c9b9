/**
 * The four roles of docs/concepts.md and their fixed expansion. The table is frozen:
 * roles expand when a token is created (S9), so nothing here may change at run time.
 * @module
 */
import { permissionMask, type Permission } from './permissions';

/** A role name, as written after `role:` or in a membership. */
export type RoleName = 'owner' | 'admin' | 'editor' | 'viewer';

/**
 * Every role, strongest first.
 *
 * @example
 * ```ts
 * import { ROLES } from 'svc-auth';
 * ROLES; // ['owner', 'admin', 'editor', 'viewer']
 * ```
 */
export const ROLES: readonly RoleName[] = Object.freeze(['owner', 'admin', 'editor', 'viewer'] as const);

/** What one role grants: its repo permissions, and what an org-level entry adds. */
export interface RoleExpansion {
  /** Granted on repositories. */
  readonly repo: readonly Permission[];
  /** Granted additionally by an org-level entry or an org membership. */
  readonly org: readonly Permission[];
}

const ALL_REPO: readonly Permission[] = Object.freeze(['repo:read', 'repo:write', 'repo:configure', 'repo:admin']);

/**
 * The role table of docs/concepts.md.
 *
 * @example
 * ```ts
 * import { ROLE_TABLE } from 'svc-auth/policy';
 * ROLE_TABLE.editor.repo; // ['repo:read', 'repo:write']
 * ROLE_TABLE.editor.org;  // ['org:read']
 * ```
 */
export const ROLE_TABLE: Readonly<Record<RoleName, RoleExpansion>> = Object.freeze({
  owner: Object.freeze({ repo: ALL_REPO, org: Object.freeze(['org:read', 'org:configure', 'org:admin'] as Permission[]) }),
  admin: Object.freeze({ repo: ALL_REPO, org: Object.freeze(['org:read', 'org:configure'] as Permission[]) }),
  editor: Object.freeze({
    repo: Object.freeze(['repo:read', 'repo:write'] as Permission[]),
    org: Object.freeze(['org:read'] as Permission[]),
  }),
  viewer: Object.freeze({ repo: Object.freeze(['repo:read'] as Permission[]), org: Object.freeze(['org:read'] as Permission[]) }),
});

const ROLE_SET: ReadonlySet<string> = new Set(ROLES);

/**
 * Is `value` one of the four role names?
 *
 * @example
 * ```ts
 * isRoleName('editor'); // true
 * isRoleName('role:editor'); // false
 * ```
 */
export function isRoleName(value: unknown): value is RoleName {
  return typeof value === 'string' && ROLE_SET.has(value);
}

/**
 * Bit masks of a role: repo part and org part.
 *
 * @example
 * ```ts
 * roleMasks('viewer'); // { repo: 0b0000001, org: 0b0010000 }
 * ```
 */
export function roleMasks(role: RoleName): { repo: number; org: number } {
  const r = ROLE_TABLE[role];
  return { repo: permissionMask(r.repo), org: permissionMask(r.org) };
}

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
