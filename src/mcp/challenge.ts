/**
 * OAuth scope challenges of `/mcp` (MCP authorization 2025-11-25, RFC 6750
 * section 3): the `scope` a client should ask for when it signs in (on every
 * 401, and as the metadata's `scopes_supported`), and the 403
 * `insufficient_scope` answer (H3) when an OAuth token's granted scope, and only
 * that, refuses a tool. Scope values are svc permissions, nothing else: they
 * come from the vocabulary, never from the request, so no request can put a
 * `"` or a new attribute into the header.
 * @module
 */
import type { IssueInput } from '../errors';
import { authorize, canEverHold, createGrant, type Grant, type Principal, type UserRoles } from '../core/policy';
import { isPermission, PERMISSIONS, type Permission } from '../core/vocabulary';
import { scopeNarrowing } from '../service';

/** @internal svc permissions in the vocabulary's order, each once: the one spelling of a `scope` value. */
export function scopeValue(permissions: Iterable<unknown>): string {
  const set = new Set<unknown>(permissions);
  return PERMISSIONS.filter((p) => set.has(p)).join(' ');
}

/** @internal check the `scopes` option once, when the handlers are built; problems go to `issues`. */
export function checkScopes(value: unknown, path: string, issues: IssueInput[]): readonly Permission[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > PERMISSIONS.length) {
    issues.push({ path, message: `expected an array of at most ${PERMISSIONS.length} svc permissions, e.g. ['repo:read']` });
    return undefined;
  }
  const seen = new Set<Permission>();
  value.forEach((p: unknown, i) => {
    if (!isPermission(p)) issues.push({ path: `${path}[${i}]`, message: 'must be a svc permission' });
    else if (seen.has(p)) issues.push({ code: 'duplicate', path: `${path}[${i}]`, message: `${p} is listed twice` });
    else seen.add(p);
  });
  return PERMISSIONS.filter((p) => seen.has(p));
}

// The roles alone (no scope layer), compiled once per roles object: a refusal
// is rare, but a client retrying a write in a loop must not compile per call.
const ROLE_GRANTS = new WeakMap<UserRoles, Grant | null>();

function roleGrant(roles: UserRoles): Grant | null {
  let g = ROLE_GRANTS.get(roles);
  if (g === undefined) {
    try {
      g = createGrant({ roles });
    } catch {
      // Roles that compiled at authentication compile here; if not, no challenge (never an allow).
      g = null;
    }
    ROLE_GRANTS.set(roles, g);
  }
  return g;
}

/**
 * @internal whether an OAuth token narrowed by its granted `scope` could hold
 * `permission` after a new consent: its user's roles allow it on some
 * resource. What `canUseTool` lists for such a token, so that a call beyond
 * the grant reaches the 403 step-up challenge instead of never being made.
 * `false` for every other principal, and on any doubt. Never throws.
 */
export function roleCouldAllow(principal: Principal, permission: Permission): boolean {
  try {
    const n = scopeNarrowing(principal);
    if (n === undefined) return false;
    const g = roleGrant(n.roles);
    return g !== null && canEverHold(g, permission);
  } catch {
    return false;
  }
}

/**
 * @internal whether `permission` is refused to `principal` by its OAuth
 * token's granted scope alone, so that a new consent could lift it: the
 * principal is a trusted issuer's session narrowed by a `scope` claim that
 * lacks the permission, and the user's roles would allow it, on `resource`
 * when one is known (`authorize` on the roles alone), else on some resource
 * (`canEverHold`). Then the `scope` to ask for: the granted permissions plus
 * the needed one. `undefined` for a PAT, a component token, an unnarrowed
 * session, a scope that already holds the permission, and a refusal by the
 * role, which no consent changes (a challenge there would loop). Never throws.
 */
export function scopeShortfall(principal: Principal, permission: Permission, resource: unknown): { scope: string } | undefined {
  try {
    const n = scopeNarrowing(principal);
    if (n === undefined || n.granted.includes(permission)) return undefined;
    const g = roleGrant(n.roles);
    if (g === null) return undefined;
    const d = typeof resource === 'string' ? authorize(g, resource, permission) : undefined;
    // An unusable resource (the arguments are checked later, by the tool's schema) asks the broader question.
    const roleAllows = d !== undefined && d.allowed ? true : d !== undefined && d.reason === 'role' ? false : canEverHold(g, permission);
    return roleAllows ? { scope: scopeValue([...n.granted, permission]) } : undefined;
  } catch {
    return undefined;
  }
}
