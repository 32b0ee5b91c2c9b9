/**
 * Checks made when a token is created: M4 (a child may not ask for more than
 * each scoped ancestor holds) and M5 (entries above the creator's role are
 * accepted with a warning). Decision-time layering (A5) is what guarantees
 * narrowing; these checks make mistakes fail early and visibly.
 * @module
 */
import { ForbiddenError } from '../../errors';
import { formatRange, RangeMatcher, rangeWithin } from '../../core/network';
import type { TokenRecord } from '../../stores';
import type { UserRoles } from '../../core/policy';
import type { Scope } from '../../core/scopes';
import { ROLE_TABLE, isRoleName, type Permission, type RoleName } from '../../core/vocabulary';
import type { PrincipalState } from '../internals';

/** `acme/web=repo:read`, `acme=org:read` or `repo:read`, for messages. */
function label(resource: string | undefined, permission: Permission): string {
  return resource === undefined ? permission : `${resource}=${permission}`;
}

/**
 * The entries of `layer` that decide for `resource` under A4: the most specific
 * tier (repo, then org, then global) that has any entry for it.
 */
function decidingTier(layer: readonly Scope[], resource: string | undefined): readonly Scope[] {
  if (resource !== undefined) {
    const exact = layer.filter((s) => s.resource === resource);
    if (exact.length > 0) return exact;
    const slash = resource.indexOf('/');
    if (slash >= 0) {
      const org = resource.slice(0, slash);
      const orgTier = layer.filter((s) => s.resource === org);
      if (orgTier.length > 0) return orgTier;
    }
  }
  return layer.filter((s) => s.resource === undefined);
}

/**
 * M4: throw `ForbiddenError` when an entry of `child` asks, for its
 * (tier, resource, permission), for something that an ancestor layer does not
 * list in the tier that would decide for that resource. `layers` are the
 * ancestors' scopes, nearest first; unscoped ancestors are left out by the
 * caller. `allowedMatches` is not compared: the layering enforces it.
 *
 * @example
 * ```ts
 * const parent = [{ resource: 'acme/w', permissions: ['repo:read'] }];
 * checkNarrowing([{ resource: 'acme', permissions: ['repo:read'] }], [parent]); // throws ForbiddenError
 * ```
 */
export function checkNarrowing(child: readonly Scope[], layers: readonly (readonly Scope[])[]): void {
  const refused: string[] = [];
  child.forEach((entry, i) => {
    for (const permission of entry.permissions) {
      const ok = layers.every((layer) => decidingTier(layer, entry.resource).some((s) => s.permissions.includes(permission)));
      if (!ok) refused.push(`scopes[${i}] ${label(entry.resource, permission)}`);
    }
  });
  if (refused.length > 0) {
    const shown = refused.slice(0, 5).join(', ') + (refused.length > 5 ? ` (and ${refused.length - 5} more)` : '');
    throw new ForbiddenError(`a token may not hold more than the token that creates it: ${shown}`);
  }
}

/**
 * The network side of M4: a child's `allowedIps` must lie inside the list of
 * every record of the creating chain that has one (each of the child's ranges
 * inside one range of that list). Conservative: a range covered only by two
 * of the parent's ranges together is refused (write it as the two halves).
 * Decisions do not rest on this check: every list of the chain is enforced
 * on each request anyway.
 *
 * @example
 * ```ts
 * checkIpNarrowing(['10.1.0.0/16'], [{ ...parent, allowedIps: ['10.0.0.0/8'] }]); // fine
 * checkIpNarrowing(['0.0.0.0/0'], [{ ...parent, allowedIps: ['10.0.0.0/8'] }]);   // throws ForbiddenError
 * ```
 */
export function checkIpNarrowing(child: readonly string[], chain: readonly TokenRecord[]): void {
  const mine = new RangeMatcher(child);
  const outside = new Set<string>();
  for (const record of chain) {
    const list = record.allowedIps;
    if (list == null) continue;
    const outer = new RangeMatcher(list);
    for (const r of mine.ranges) if (!outer.ranges.some((o) => rangeWithin(r, o))) outside.add(formatRange(r));
  }
  if (outside.size > 0) {
    const shown = [...outside].slice(0, 5).join(', ') + (outside.size > 5 ? ` (and ${outside.size - 5} more)` : '');
    throw new ForbiddenError(`a token may not be used from more places than the token that creates it: allowedIps ${shown}`);
  }
}

interface RoleIndex {
  orgs: Map<string, RoleName>;
  repos: Map<string, RoleName>;
}

function indexRoles(roles: UserRoles): RoleIndex {
  const pick = (rec: Record<string, unknown> | undefined): Map<string, RoleName> => {
    const out = new Map<string, RoleName>();
    if (rec === undefined || rec === null) return out;
    for (const [k, v] of Object.entries(rec)) if (isRoleName(v)) out.set(k.toLowerCase(), v);
    return out;
  };
  return { orgs: pick(roles.orgs), repos: pick(roles.repos) };
}

function roleGrants(role: RoleName | undefined, permission: Permission, part: 'repo' | 'org'): boolean {
  return role !== undefined && ROLE_TABLE[role][part].includes(permission);
}

/** Whether the role alone could ever allow `permission` through this entry. */
function withinRole(idx: RoleIndex, resource: string | undefined, permission: Permission): boolean {
  const isRepoPerm = permission.startsWith('repo:');
  if (resource === undefined) {
    // A global entry is useful wherever some membership grants the permission.
    if (!isRepoPerm) return [...idx.orgs.values()].some((r) => roleGrants(r, permission, 'org'));
    return [...idx.orgs.values(), ...idx.repos.values()].some((r) => roleGrants(r, permission, 'repo'));
  }
  const slash = resource.indexOf('/');
  if (slash >= 0) {
    const org = resource.slice(0, slash);
    return roleGrants(idx.orgs.get(org), permission, 'repo') || roleGrants(idx.repos.get(resource), permission, 'repo');
  }
  if (!isRepoPerm) return roleGrants(idx.orgs.get(resource), permission, 'org');
  if (roleGrants(idx.orgs.get(resource), permission, 'repo')) return true;
  const prefix = `${resource}/`;
  return [...idx.repos].some(([key, r]) => key.startsWith(prefix) && roleGrants(r, permission, 'repo'));
}

/**
 * M5: one warning per entry that lists permissions the creator's current role
 * does not grant there. Such entries are kept: the role cap applies at decision
 * time, so they start to work if the role grows.
 *
 * @example
 * ```ts
 * roleWarnings([{ resource: 'acme/web', permissions: ['repo:admin'] }], { orgs: { acme: 'viewer' } });
 * // ['scopes[0]: acme/web=repo:admin is above your current role; ...']
 * ```
 */
export function roleWarnings(scopes: readonly Scope[], roles: UserRoles): string[] {
  const idx = indexRoles(roles);
  const warnings: string[] = [];
  scopes.forEach((entry, i) => {
    const above = entry.permissions.filter((p) => !withinRole(idx, entry.resource, p));
    if (above.length > 0) {
      const what = above.map((p) => label(entry.resource, p)).join(', ');
      warnings.push(`scopes[${i}]: ${what} is above your current role; it allows nothing until your role grants it`);
    }
  });
  return warnings;
}

/**
 * The refusal of a trusted issuer's session narrowed by its token's scope claim (T10), for
 * `what` (`manage tokens`, `see or end sessions`): it names the issuer, the claim and, for an
 * external identity provider, the option that says what its scopes mean here.
 *
 * @example
 * ```ts
 * throw narrowedRefusal(state, 'manage tokens');
 * ```
 */
export function narrowedRefusal(state: PrincipalState, what: string): ForbiddenError {
  const from = state.issuer;
  if (from === undefined) return new ForbiddenError(`a session narrowed by its identity provider's scope claim may not ${what}`);
  const claim = from.scopeClaim ?? 'scope';
  const granted = from.issuedBy.permissions?.join(' ') || 'nothing';
  const base = `a session from ${from.issuedBy.issuer} narrowed by its token's ${claim} claim (granting ${granted}) may not ${what}`;
  // The own authorization server's scope is the user's consent to one client: no option lifts it.
  if (from.recorded) return new ForbiddenError(`${base}: it is an OAuth client's grant; sign in as the user instead`);
  return new ForbiddenError(
    `${base}: if that issuer's scopes say nothing about svc permissions, set scopes: 'ignore' on it in trustedIssuers ` +
      `(or list its own scope names in ignoredScopes, or map them with scopes: { name: [permissions] })`,
  );
}
