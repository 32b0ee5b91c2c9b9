/**
 * Who holds which role where: the `members` source of `createAuth`. The store
 * keeps one role per (user, resource); resources are `org` or `org/repo`, checked
 * with the S7 name rules and kept lowercase.
 * @module
 */
import { ValidationError } from '../errors';
import { parseResource } from '../core/scopes';
import { checkUserId, isRoleName, ROLES, type RoleName, type UserRoles } from '../core/vocabulary';
import { settle } from './settle';

/**
 * One membership row, as {@link MembershipStore.list} returns it.
 *
 * @example
 * ```ts
 * const row: Membership = { user: 'alice', resource: 'acme/web', role: 'editor' };
 * ```
 */
export interface Membership {
  readonly user: string;
  /** `org` or `org/repo`, lowercase. */
  readonly resource: string;
  readonly role: RoleName;
}

/**
 * Where memberships live. `rolesOf` is what `createAuth({ members })` needs; the
 * rest is administration (the CLI's `svc member ...`).
 *
 * @example
 * ```ts
 * const members: MembershipStore = new MemoryMembershipStore();
 * await members.set('alice', 'Acme', 'editor');
 * await members.rolesOf('alice'); // { orgs: { acme: 'editor' }, repos: {} }
 * ```
 */
export interface MembershipStore {
  /** The user's roles; empty maps for an unknown user. */
  rolesOf(userId: string): Promise<UserRoles>;
  /** Give `userId` `role` on `resource` (`org` or `org/repo`), replacing any role held there. */
  set(userId: string, resource: string, role: RoleName): Promise<void>;
  /** Remove the user's role on `resource`; `true` when there was one. */
  remove(userId: string, resource: string): Promise<boolean>;
  /** Every membership, sorted by user, then resource. */
  list(): Promise<Membership[]>;
}

/**
 * @internal Check a resource and return its lowercase key.
 *
 * @example
 * ```ts
 * checkResource('Acme/Web'); // 'acme/web'
 * ```
 */
export function checkResource(resource: unknown, path = 'resource'): string {
  const ref = parseResource(resource);
  if (ref === null) throw new ValidationError([{ path, message: "expected 'org' or 'org/repo' (letters, digits, '.', '_', '-')" }]);
  return ref.key;
}

/**
 * @internal Check a role name.
 *
 * @example
 * ```ts
 * checkRole('editor'); // 'editor'
 * ```
 */
export function checkRole(role: unknown, path = 'role'): RoleName {
  if (!isRoleName(role)) throw new ValidationError([{ path, message: `expected one of ${ROLES.join(', ')}` }]);
  return role;
}

/**
 * @internal Memberships in maps (never plain objects, so a user or resource named
 * `__proto__` or `constructor` is just a key), shared by the memory and file stores.
 *
 * @example
 * ```ts
 * const t = new MembershipTable();
 * t.set('alice', 'acme', 'viewer');
 * t.rolesOf('alice'); // { orgs: { acme: 'viewer' }, repos: {} }
 * ```
 */
export class MembershipTable {
  private readonly byUser = new Map<string, Map<string, RoleName>>();

  rolesOf(userId: unknown): UserRoles {
    const rows = this.byUser.get(checkUserId(userId));
    // Null-prototype maps: a lookup of an org the user is not in finds nothing, even `constructor`.
    const orgs: Record<string, RoleName> = Object.create(null) as Record<string, RoleName>;
    const repos: Record<string, RoleName> = Object.create(null) as Record<string, RoleName>;
    if (rows) for (const [resource, role] of rows) (resource.includes('/') ? repos : orgs)[resource] = role;
    return { orgs, repos };
  }

  set(userId: unknown, resource: unknown, role: unknown): void {
    const user = checkUserId(userId);
    const key = checkResource(resource);
    const r = checkRole(role);
    let rows = this.byUser.get(user);
    if (rows === undefined) {
      rows = new Map();
      this.byUser.set(user, rows);
    }
    rows.set(key, r);
  }

  remove(userId: unknown, resource: unknown): boolean {
    const user = checkUserId(userId);
    const key = checkResource(resource);
    const rows = this.byUser.get(user);
    if (rows === undefined || !rows.delete(key)) return false;
    if (rows.size === 0) this.byUser.delete(user);
    return true;
  }

  list(): Membership[] {
    const out: Membership[] = [];
    for (const [user, rows] of this.byUser) for (const [resource, role] of rows) out.push(Object.freeze({ user, resource, role }));
    return out.sort(compareMemberships);
  }
}

/**
 * @internal The order of {@link MembershipStore.list}: by user, then resource, in
 * code-unit order, not locale order, so that it is the same on every machine and in every store.
 *
 * @example
 * ```ts
 * rows.sort(compareMemberships);
 * ```
 */
export function compareMemberships(a: Membership, b: Membership): number {
  return cmp(a.user, b.user) || cmp(a.resource, b.resource);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A {@link MembershipStore} in memory: for tests, examples and services that
 * load memberships from elsewhere at start-up. Invalid input rejects with a
 * `ValidationError` (`issues[0].path` is `userId`, `resource` or `role`).
 *
 * @example
 * ```ts
 * import { createAuth } from 'svc-auth';
 * import { MemoryMembershipStore } from 'svc-auth/stores';
 * const members = new MemoryMembershipStore();
 * await members.set('alice', 'acme', 'editor');
 * await members.set('alice', 'acme/secrets', 'viewer');
 * const auth = createAuth({ issuer: 'https://svc.example', keys, members });
 * ```
 */
export class MemoryMembershipStore implements MembershipStore {
  private readonly table = new MembershipTable();

  rolesOf(userId: string): Promise<UserRoles> {
    return settle(() => this.table.rolesOf(userId));
  }

  set(userId: string, resource: string, role: RoleName): Promise<void> {
    return settle(() => this.table.set(userId, resource, role));
  }

  remove(userId: string, resource: string): Promise<boolean> {
    return settle(() => this.table.remove(userId, resource));
  }

  list(): Promise<Membership[]> {
    return settle(() => this.table.list());
  }
}
