/**
 * The seven permissions of docs/concepts.md. Each has a fixed bit so that a set of
 * permissions is one small integer and a check is one AND.
 * @module
 */

/** A permission a scope entry can list (docs/concepts.md). */
export type Permission = 'repo:read' | 'repo:write' | 'repo:configure' | 'repo:admin' | 'org:read' | 'org:configure' | 'org:admin';

/**
 * Every permission, in the documented order (repo, then org). Repo permissions come first.
 *
 * @example
 * ```ts
 * import { PERMISSIONS } from 'svc-auth';
 * PERMISSIONS.includes('repo:read'); // true
 * ```
 */
export const PERMISSIONS: readonly Permission[] = Object.freeze([
  'repo:read',
  'repo:write',
  'repo:configure',
  'repo:admin',
  'org:read',
  'org:configure',
  'org:admin',
] as const);

// A Map, not an object: a hostile permission string such as "__proto__" or
// "constructor" must not find anything.
const INDEX: ReadonlyMap<string, number> = new Map(PERMISSIONS.map((p, i) => [p, i]));

/**
 * Is `value` one of the seven permissions?
 *
 * @example
 * ```ts
 * isPermission('repo:read'); // true
 * isPermission('repo:*');    // false
 * ```
 */
export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && INDEX.has(value);
}

/**
 * Index of a permission in {@link PERMISSIONS}, or -1. Never throws.
 *
 * @example
 * ```ts
 * permissionIndex('org:read'); // 4
 * ```
 */
export function permissionIndex(value: unknown): number {
  if (typeof value !== 'string') return -1;
  const i = INDEX.get(value);
  return i === undefined ? -1 : i;
}

/**
 * The bit of one permission (`1 << index`).
 *
 * @example
 * ```ts
 * permissionBit('repo:write'); // 2
 * ```
 */
export function permissionBit(permission: Permission): number {
  return 1 << (INDEX.get(permission) as number);
}

/**
 * A set of permissions as a bit mask.
 *
 * @example
 * ```ts
 * permissionMask(['repo:read', 'repo:write']); // 3
 * ```
 */
export function permissionMask(permissions: Iterable<Permission>): number {
  let mask = 0;
  for (const p of permissions) mask |= permissionBit(p);
  return mask;
}

/**
 * The permissions of a mask, in {@link PERMISSIONS} order.
 *
 * @example
 * ```ts
 * permissionsOf(3); // ['repo:read', 'repo:write']
 * ```
 */
export function permissionsOf(mask: number): Permission[] {
  return PERMISSIONS.filter((_, i) => (mask & (1 << i)) !== 0);
}

/**
 * Whether a permission is taken on a repository (`org/repo`) or an organization (`org`).
 *
 * @example
 * ```ts
 * permissionTier('org:admin'); // 'org'
 * ```
 */
export function permissionTier(permission: Permission): 'repo' | 'org' {
  return permission.startsWith('repo:') ? 'repo' : 'org';
}
