/**
 * `canEverHold`: could this grant allow a permission on any resource at all?
 * Answered from the compiled table (every row a grant has), never by trial
 * decisions, so it costs one pass over the rows and allocates nothing. Used to
 * hide what a credential can never use (an MCP `tools/list`, a UI menu).
 * Pure and synchronous, like the rest of the policy layer.
 * @module
 */
import { permissionIndex } from '../vocabulary';
import { ALLOW } from './decision';
import type { Grant } from './grant';
import { tableOf, type Principal } from './subject';

/**
 * Is there any resource on which `subject` may use `permission`? True exactly
 * when, for some org or repo, the role cap allows it and every scope layer has
 * a tier for that resource listing it (A3-A5): then `authorize` allows it there
 * without a thing name. A thing-name restriction does not hide a permission
 * (repository-level operations stay possible, A4). Rows of orgs and repos the
 * grant never names hold nothing (the role cap denies), so they are never
 * consulted. `subject` is a {@link Grant} or the very `Principal` that
 * `authenticate` returned; anything else, and an unknown permission, is
 * `false`. Never throws.
 *
 * @example
 * ```ts
 * const grant = createGrant({
 *   roles: { orgs: { acme: 'editor' } },
 *   layers: [[{ resource: 'acme/web', permissions: ['repo:read'] }]],
 * });
 * canEverHold(grant, 'repo:read');  // true
 * canEverHold(grant, 'repo:write'); // false: no layer lists it anywhere
 * canEverHold(grant, 'org:admin');  // false: the editor role never holds it
 * ```
 */
export function canEverHold(subject: Grant | Principal, permission: string): boolean {
  try {
    const table = tableOf(subject);
    const pi = permissionIndex(permission);
    if (table === undefined || pi < 0) return false;
    for (const row of table.exact.values()) if (row.plain[pi] === ALLOW) return true;
    for (const row of table.repoDefault.values()) if (row.plain[pi] === ALLOW) return true;
    return false;
  } catch {
    // A hostile Proxy subject: never an allow on error.
    return false;
  }
}
