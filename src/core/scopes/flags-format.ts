/**
 * Scopes back to text: `--scope` flag strings for display and round trips.
 * @module
 */
import { ValidationError } from '../../errors';
import { isPermission } from '../vocabulary';
import { IssueList, describe, guardInput, own } from './issues';
import type { Scope } from './types';

/**
 * Can `scope` be written as one `--scope` flag? True unless it carries
 * `allowedMatches`, which only `--scopes-json` can express.
 *
 * @example
 * ```ts
 * isFlagExpressible({ resource: 'acme/web', permissions: ['repo:read'] });                          // true
 * isFlagExpressible({ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }); // false
 * ```
 */
export function isFlagExpressible(scope: Scope): boolean {
  return typeof scope === 'object' && scope !== null && !Object.prototype.hasOwnProperty.call(scope, 'allowedMatches');
}

/**
 * Render normalized scopes (the output of `normalizeScopes`) as `--scope`
 * values, one string per entry: `acme/web=repo:read,repo:write`,
 * `acme=org:read`, `repo:read` (global). An entry with `allowedMatches` is
 * rendered for display only, as `acme/web=repo:read [Doc/*,Img/**]`: such a
 * string is not a valid flag (see {@link isFlagExpressible}). Throws
 * `ValidationError` when an element is not shaped like a scope.
 *
 * @example
 * ```ts
 * formatScopeFlags([{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }, { permissions: ['repo:read'] }]);
 * // ['acme/web=repo:read,repo:write', 'repo:read']
 * ```
 */
export function formatScopeFlags(scopes: readonly Scope[]): string[] {
  return guardInput('scopes', () => {
    const issues = new IssueList();
    if (!Array.isArray(scopes)) throw new ValidationError([{ path: '', message: `scopes must be an array, got ${describe(scopes)}` }]);
    const n = scopes.length;
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const s: unknown = scopes[i];
      const text = formatOne(s, `[${i}]`, issues);
      if (text !== null) out.push(text);
    }
    issues.throwIfAny();
    return out;
  });
}

function formatOne(s: unknown, path: string, issues: IssueList): string | null {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) {
    issues.add(path, `expected a scope object, got ${describe(s)}`);
    return null;
  }
  const rec = s as Record<string, unknown>;
  const resource = own(rec, 'resource') ? rec.resource : undefined;
  const permissions = own(rec, 'permissions') ? rec.permissions : undefined;
  const matches = own(rec, 'allowedMatches') ? rec.allowedMatches : undefined;
  let ok = true;
  if (resource !== undefined && typeof resource !== 'string') {
    issues.add(`${path}.resource`, `must be a string, got ${describe(resource)}`);
    ok = false;
  }
  if (!Array.isArray(permissions) || permissions.length === 0 || !permissions.every((p) => isPermission(p))) {
    issues.add(`${path}.permissions`, 'must be a non-empty list of permissions (normalize the scopes first)');
    ok = false;
  }
  if (matches !== undefined && (!Array.isArray(matches) || !matches.every((m) => typeof m === 'string'))) {
    issues.add(`${path}.allowedMatches`, 'must be a list of strings');
    ok = false;
  }
  if (!ok) return null;
  const perms = (permissions as string[]).join(',');
  const flag = resource === undefined ? perms : `${resource as string}=${perms}`;
  return matches === undefined ? flag : `${flag} [${(matches as string[]).join(',')}]`;
}
