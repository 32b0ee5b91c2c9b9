/**
 * Meaning of scope entries (rules S2-S5, S7-S9): names checked and lowercased,
 * roles expanded once and for all, duplicates and misplaced permissions
 * refused, `allowedMatches` checked or stripped. Every problem is collected and
 * thrown once. Entries may come from anywhere in-process (even a Proxy), so
 * each property is read once, only own properties count, and nothing read
 * ends up in the output: the output is rebuilt and deeply frozen.
 * @module
 */
import { ValidationError } from '../../errors';
import {
  PERMISSIONS,
  ROLE_TABLE,
  isPermission,
  isRoleName,
  permissionBit,
  permissionTier,
  permissionsOf,
  type Permission,
} from '../vocabulary';
import { IssueList, describe, formatPath, guardInput, own, preview } from './issues';
import { checkPattern } from './glob';
import { NAME_PATTERN, parseResource } from './names';
import { LIMITS, type Scope, type ScopeEntry } from './types';

const ENTRY_KEYS: ReadonlySet<string> = new Set(['resource', 'permissions', 'allowedMatches']);
// Never a valid resource key (names cannot be empty), so the global tier cannot collide with an org.
const GLOBAL_KEY = '';

type Tier = 'repo' | 'org' | 'global';

/**
 * Validate scope entries and turn them into {@link Scope}s: resource lowercased,
 * `role:<name>` expanded (on a repo entry to its repo permissions, on an org
 * entry to those plus the role's org extras), permissions listed in
 * `PERMISSIONS` order, `allowedMatches` kept (in the given order) on repo
 * entries and stripped with a warning elsewhere, every object deeply frozen.
 *
 * Throws one `ValidationError` listing every problem: an empty list (omit
 * scopes for full access instead), more than `LIMITS.maxEntries` entries, an
 * unknown key, a bad resource name, an empty or over-long permission list, an
 * unknown permission or role, a role on the global wildcard, an `org:*`
 * permission on a repo entry, a (resource, permission) pair granted twice
 * (within an entry or across entries, after role expansion), a bad or
 * repeated pattern, or more than `LIMITS.maxPatterns` patterns. A key present
 * with the value `undefined` is an error too, never read as "omitted": a
 * missing restriction would widen access.
 *
 * Idempotent: normalizing its own output returns equal scopes and no warnings.
 *
 * @example
 * ```ts
 * const { scopes, warnings } = normalizeScopes([
 *   { resource: 'Acme/Web', permissions: ['role:editor'], allowedMatches: ['Doc/**'] },
 *   { resource: 'acme', permissions: ['org:read'], allowedMatches: ['Img/*'] },
 * ]);
 * // scopes:   [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] },
 * //            { resource: 'acme', permissions: ['org:read'] }]
 * // warnings: ['[1].allowedMatches: ignored on an org-level entry; ...']
 * ```
 */
export function normalizeScopes(entries: ScopeEntry[] | readonly Scope[]): { scopes: Scope[]; warnings: string[] } {
  return check(entries, false);
}

/**
 * @internal The one scope validator's strict mode, for scopes that must already be what
 * {@link normalizeScopes} returned: a token's layer (`compileLayer`) and a stored record (the store
 * codec). Same rules and paths, but nothing is repaired: a `role:` item (roles expand at creation,
 * S9) and `allowedMatches` outside a repo entry (S5 strips it at creation) are errors, and an empty
 * list is a valid layer that denies everything (A5). Returns the scopes rebuilt and deep-frozen.
 *
 * @example
 * ```ts
 * checkNormalizedScopes([{ resource: 'acme/web', permissions: ['repo:read'] }]); // ok
 * checkNormalizedScopes([{ resource: 'acme', permissions: ['role:viewer'] }]);  // throws ValidationError
 * ```
 */
export function checkNormalizedScopes(scopes: unknown): Scope[] {
  return check(scopes, true).scopes;
}

function check(entries: unknown, strict: boolean): { scopes: Scope[]; warnings: string[] } {
  return guardInput('scope entries', () => {
    if (!Array.isArray(entries)) {
      throw new ValidationError([
        { code: 'invalid_type', path: [], message: `scopes must be an array of scope entries, got ${describe(entries)}` },
      ]);
    }
    const n = entries.length;
    if (n === 0 && !strict) {
      throw new ValidationError([
        { path: '', message: 'the scope list is empty: omit scopes altogether for a token with the full access of its owner' },
      ]);
    }
    if (n > LIMITS.maxEntries) {
      throw new ValidationError([{ path: '', message: `at most ${LIMITS.maxEntries} scope entries are allowed, got ${n}` }]);
    }
    const issues = new IssueList();
    const warnings: string[] = [];
    // resource key -> permission -> path of the entry that first granted it
    const granted = new Map<string, Map<Permission, string>>();
    const scopes: Scope[] = [];
    for (let i = 0; i < n; i++) {
      const scope = normalizeOne(entries[i] as unknown, `[${i}]`, granted, issues, warnings, strict);
      if (scope) scopes.push(scope);
    }
    issues.throwIfAny();
    return { scopes, warnings };
  });
}

function normalizeOne(
  raw: unknown,
  path: string,
  granted: Map<string, Map<Permission, string>>,
  issues: IssueList,
  warnings: string[],
  strict: boolean,
): Scope | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    issues.add(path, `expected a scope entry object, got ${describe(raw)}`);
    return null;
  }
  const before = issues.size;
  const rec = raw as Record<string, unknown>;
  for (const key of Object.keys(rec)) {
    if (ENTRY_KEYS.has(key)) continue;
    const seg = formatPath([key]);
    issues.add(
      seg.startsWith('[') ? path + seg : `${path}.${seg}`,
      'unknown key: an entry has only resource, permissions and allowedMatches',
      'unrecognized_keys',
    );
  }
  const hasResource = own(rec, 'resource');
  const hasMatches = own(rec, 'allowedMatches');
  const rawResource = hasResource ? rec.resource : undefined;
  const rawPermissions = own(rec, 'permissions') ? rec.permissions : undefined;
  const rawMatches = hasMatches ? rec.allowedMatches : undefined;

  let tier: Tier = 'global';
  let key = GLOBAL_KEY;
  if (hasResource) {
    const ref = parseResource(rawResource);
    if (ref === null) {
      const what = typeof rawResource === 'string' ? preview(rawResource) : describe(rawResource);
      const hint = rawResource === undefined ? ' (omit the key for the global wildcard)' : '';
      issues.add(`${path}.resource`, `${what} is not "<org>" or "<org>/<repo>" with names matching ${NAME_PATTERN.source}${hint}`);
      return null;
    }
    tier = ref.repo === undefined ? 'org' : 'repo';
    key = ref.key;
  }

  const mask = expandPermissions(rawPermissions, tier, `${path}.permissions`, issues, strict);
  const matches = hasMatches ? checkMatches(rawMatches, tier, `${path}.allowedMatches`, issues, warnings, strict) : null;
  if (issues.size !== before || mask === 0) return null;

  let seen = granted.get(key);
  if (!seen) granted.set(key, (seen = new Map<Permission, string>()));
  for (const p of permissionsOf(mask)) {
    const first = seen.get(p);
    if (first !== undefined) {
      const where = key === GLOBAL_KEY ? 'the global wildcard' : preview(key);
      issues.add(
        `${path}.permissions`,
        `"${p}" on ${where} is already granted by entry ${first}: each (resource, permission) pair may appear once`,
      );
    } else {
      seen.set(p, path);
    }
  }

  const permissions = Object.freeze(permissionsOf(mask));
  if (tier === 'global') return Object.freeze({ permissions });
  if (matches === null) return Object.freeze({ resource: key, permissions });
  return Object.freeze({ resource: key, permissions, allowedMatches: matches });
}

/** The entry's permissions as a mask, with roles expanded; 0 when anything is wrong. */
function expandPermissions(raw: unknown, tier: Tier, path: string, issues: IssueList, strict: boolean): number {
  if (!Array.isArray(raw)) {
    issues.add(path, `expected a list of permissions, got ${describe(raw)}`);
    return 0;
  }
  const n = raw.length;
  if (n === 0) {
    issues.add(path, 'the permission list is empty: list at least one permission or role:<name>');
    return 0;
  }
  if (n > LIMITS.maxPermissionsPerEntry) {
    issues.add(path, `at most ${LIMITS.maxPermissionsPerEntry} permissions per entry, got ${n}`);
    return 0;
  }
  const before = issues.size;
  let mask = 0;
  for (let j = 0; j < n; j++) {
    const item: unknown = raw[j];
    const at = `${path}[${j}]`;
    if (typeof item !== 'string') {
      issues.add(at, `expected a permission string, got ${describe(item)}`);
      continue;
    }
    let add: readonly Permission[];
    if (item.startsWith('role:') && strict) {
      issues.add(at, `${preview(item)} is a role: expand roles with normalizeScopes first`);
      continue;
    } else if (item.startsWith('role:')) {
      const role = item.slice(5);
      if (!isRoleName(role)) {
        issues.add(at, `unknown role ${preview(item)}: use role:owner, role:admin, role:editor or role:viewer`);
        continue;
      }
      if (tier === 'global') {
        issues.add(at, `${item} needs a concrete resource: write it on an "<org>" or "<org>/<repo>" entry`);
        continue;
      }
      const r = ROLE_TABLE[role];
      add = tier === 'repo' ? r.repo : [...r.repo, ...r.org];
    } else if (isPermission(item)) {
      if (tier === 'repo' && permissionTier(item) === 'org') {
        issues.add(at, `${item} is an organization permission and cannot be granted on a repository; use an "<org>" entry`);
        continue;
      }
      add = [item];
    } else {
      issues.add(at, `unknown permission ${preview(item)}: use one of ${PERMISSIONS.join(', ')} or role:<name>`);
      continue;
    }
    for (const p of add) {
      const bit = permissionBit(p);
      if ((mask & bit) !== 0) issues.add(at, `"${p}" is granted twice in this entry (after role expansion)`);
      mask |= bit;
    }
  }
  return issues.size === before ? mask : 0;
}

/** The checked patterns (frozen) for a repo entry; null when stripped or wrong. */
function checkMatches(
  raw: unknown,
  tier: Tier,
  path: string,
  issues: IssueList,
  warnings: string[],
  strict: boolean,
): readonly string[] | null {
  if (!Array.isArray(raw)) {
    issues.add(path, `expected a list of glob patterns, got ${describe(raw)}`);
    return null;
  }
  if (tier !== 'repo' && strict) {
    issues.add(path, 'allowedMatches is only allowed on repo entries (normalizeScopes strips it elsewhere)');
    return null;
  }
  if (tier !== 'repo') {
    const level = tier === 'org' ? 'an org-level' : 'a global';
    warnings.push(`${path}: ignored on ${level} entry; allowedMatches only restricts repo-scoped ("<org>/<repo>") entries`);
    return null;
  }
  const n = raw.length;
  if (n > LIMITS.maxPatterns) {
    issues.add(path, `at most ${LIMITS.maxPatterns} patterns per entry, got ${n}`);
    return null;
  }
  const out: string[] = [];
  const seen = new Set<string>();
  for (let k = 0; k < n; k++) {
    const p: unknown = raw[k];
    const at = `${path}[${k}]`;
    const problem = checkPattern(p);
    if (problem !== null)
      issues.add(at, typeof p === 'string' ? `${preview(p)}: ${problem}` : `expected a pattern string, got ${describe(p)}`);
    else if (seen.has(p as string)) issues.add(at, `${preview(p as string)} is listed twice`);
    else {
      seen.add(p as string);
      out.push(p as string);
    }
  }
  return Object.freeze(out);
}
