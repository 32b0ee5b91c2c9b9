/**
 * `authorize`: one decision from a compiled grant. It runs on every request,
 * so the common path is two Map lookups and an array read, returns one of the
 * frozen decision constants and allocates nothing. It never throws: anything
 * malformed or hostile is `invalid` (A1), and an unexpected error is a deny.
 * @module
 */
import { permissionIndex } from '../vocabulary';
import { isValidThingName, LIMITS } from '../scopes';
import { tableOf, type Principal } from './subject';
import { ALLOW, DENY_INVALID, DENY_THING, type Decision } from './decision';
import type { Grant } from './grant';
import { UNKNOWN_ORG, UNKNOWN_REPO, type GrantTable, type ResourcePolicy } from './grant-table';

const MAX_RESOURCE = 2 * LIMITS.maxNameLength + 1;
const MAX_NAME = LIMITS.maxNameLength;

/**
 * May `subject` use `permission` on `resource` (and, for repo permissions, on
 * the thing `thingName`)? `subject` is a {@link Grant} or the very `Principal`
 * that `authenticate` returned (a copy carries no grant and is `invalid`).
 * Repo permissions take `org/repo`, org permissions take `org`; resources
 * compare case-insensitively, thing names case-sensitively. Returns one of
 * the frozen constants `ALLOW`, `DENY_INVALID`, `DENY_ROLE`, `DENY_SCOPE`,
 * `DENY_THING`, or the frozen `policy` decision of one of the grant's org
 * gates, built when the grant was compiled (read `.allowed`/`.reason`, and
 * `.message` for `policy`). Never throws.
 *
 * @example
 * ```ts
 * const grant = createGrant({ roles: { orgs: { acme: 'editor' } }, layers: [[{ resource: 'acme/web', permissions: ['repo:read'] }]] });
 * authorize(grant, 'acme/web', 'repo:read');              // { allowed: true }
 * authorize(grant, 'acme/web', 'repo:write');             // { allowed: false, reason: 'scope' }
 * authorize(grant, 'acme', 'org:admin');                  // { allowed: false, reason: 'role' }
 * authorize(grant, 'acme/web', 'org:read');               // { allowed: false, reason: 'invalid' }
 * ```
 */
export function authorize(subject: Grant | Principal, resource: string, permission: string, thingName?: string): Decision {
  try {
    const table = tableOf(subject);
    if (table === undefined) return DENY_INVALID;
    const pi = permissionIndex(permission);
    if (pi < 0 || typeof resource !== 'string') return DENY_INVALID;
    const row = table.exact.get(resource) ?? table.seen.get(resource) ?? seenRow(table, resource);
    if (row === null) return DENY_INVALID;
    if (thingName === undefined) return row.plain[pi] ?? DENY_INVALID;
    // One RegExp that checks the name (S7) and every layer's patterns at once:
    // a pass is an allow; a miss is `thing` for a valid name, `invalid` otherwise.
    const whole = row.whole[pi];
    if (whole != null && typeof thingName === 'string') {
      if (whole(thingName)) return ALLOW;
      return isValidThingName(thingName) ? DENY_THING : DENY_INVALID;
    }
    if (!isValidThingName(thingName)) return DENY_INVALID;
    const d = row.withThing[pi] ?? DENY_INVALID;
    if (d !== ALLOW) return d;
    const ms = row.matchers[pi];
    if (ms == null) return ALLOW;
    for (let i = 0; i < ms.length; i++) {
      if (!(ms[i] as (name: string) => boolean)(thingName)) return DENY_THING;
    }
    return ALLOW;
  } catch {
    // A hostile Proxy subject or a failing matcher: never allow on error.
    return DENY_INVALID;
  }
}

// A few resources per grant (a token is used on a handful of repositories), and
// short ones only: a flood of distinct resources costs a scan each, never memory.
const MAX_SEEN = 8;
const MAX_SEEN_LENGTH = 64;

/** {@link missRow}, remembered for a well-formed resource. */
function seenRow(table: GrantTable, resource: string): ResourcePolicy | null {
  const row = missRow(table, resource);
  if (row !== null && resource.length <= MAX_SEEN_LENGTH) {
    if (table.seen.size >= MAX_SEEN) table.seen.clear();
    table.seen.set(resource, row);
  }
  return row;
}

/**
 * A resource that is not an exact key of the table: check S7 with one scan of
 * char codes, lowercase only when it has capitals, then fall back to the
 * org's default row for repos of a known org, or to the rows of an org the
 * user holds nothing in. `null` when the resource is malformed.
 */
function missRow(table: GrantTable, resource: string): ResourcePolicy | null {
  const n = resource.length;
  if (n === 0 || n > MAX_RESOURCE) return null;
  let slash = -1;
  let start = 0;
  let upper = false;
  for (let i = 0; i < n; i++) {
    const c = resource.charCodeAt(i);
    if (c === 47) {
      if (slash >= 0 || i === start || i - start > MAX_NAME) return null;
      slash = i;
      start = i + 1;
      continue;
    }
    const digit = c >= 48 && c <= 57;
    const lower = c >= 97 && c <= 122;
    const cap = c >= 65 && c <= 90;
    if (!(digit || lower || cap)) {
      // `.`, `_` and `-` are allowed, but never first in a name (S7).
      if (i === start || !(c === 46 || c === 95 || c === 45)) return null;
    }
    if (cap) upper = true;
  }
  if (n === start || n - start > MAX_NAME) return null;
  let key = resource;
  if (upper) {
    key = resource.toLowerCase();
    const hit = table.exact.get(key);
    if (hit !== undefined) return hit;
  }
  if (slash < 0) return UNKNOWN_ORG;
  return table.repoDefault.get(key.slice(0, slash)) ?? UNKNOWN_REPO;
}
