/**
 * Syntax of repeated `--scope` values (rule S1). This module only splits text;
 * whether the names, permissions and roles mean anything is decided by
 * `normalizeScopes`, which every entry goes through afterwards.
 * @module
 */
import { ValidationError } from '../../errors';
import { IssueList, describe, guardInput, preview } from './issues';
import { NAME_PATTERN, parseResource } from './names';
import { LIMITS, type ScopeEntry } from './types';

// Only spaces and tabs are "spaces around items": a newline or an invisible
// character is kept so that it fails loudly later instead of being smoothed over.
const EDGE_SPACE = /^[ \t]+|[ \t]+$/g;

/**
 * Parse the values of repeated `--scope` flags into scope entries, one entry per value.
 * Forms: `<org>/<repo>=<perms>` (repo-scoped), `<org>=<perms>` (org-level),
 * `<perms>` (global wildcard); `<perms>` is a comma-separated list of
 * permissions or `role:<name>` items, with spaces and tabs around items ignored.
 *
 * The resource's syntax (S7) is checked here so that the error points at the
 * flag; permissions and roles are passed through as written and judged by
 * `normalizeScopes`. The resource keeps the case it was written in.
 * Every problem is reported in one `ValidationError`, with paths like `--scope[2]`.
 *
 * @example
 * ```ts
 * parseScopeFlags(['acme/web=repo:read, repo:write', 'acme=role:viewer', 'repo:read']);
 * // [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] },
 * //  { resource: 'acme', permissions: ['role:viewer'] },
 * //  { permissions: ['repo:read'] }]
 * ```
 */
export function parseScopeFlags(values: string[]): ScopeEntry[] {
  return guardInput('--scope values', () => {
    if (!Array.isArray(values)) {
      throw new ValidationError([{ path: '--scope', message: `expected a list of --scope values, got ${describe(values)}` }]);
    }
    const n = values.length;
    if (n > LIMITS.maxEntries) {
      throw new ValidationError([{ path: '--scope', message: `at most ${LIMITS.maxEntries} --scope values are allowed, got ${n}` }]);
    }
    const issues = new IssueList();
    const out: ScopeEntry[] = [];
    for (let i = 0; i < n; i++) {
      const entry = parseOne(values[i], `--scope[${i}]`, issues);
      if (entry) out.push(entry);
    }
    issues.throwIfAny();
    return out;
  });
}

function parseOne(raw: unknown, path: string, issues: IssueList): ScopeEntry | null {
  if (typeof raw !== 'string') {
    issues.add(path, `expected a string, got ${describe(raw)}`);
    return null;
  }
  if (raw.length > LIMITS.maxScopeFlagLength) {
    issues.add(path, `longer than ${LIMITS.maxScopeFlagLength} characters`);
    return null;
  }
  const eq = raw.indexOf('=');
  if (eq >= 0 && raw.indexOf('=', eq + 1) >= 0) {
    issues.add(path, 'more than one "=": use <org>/<repo>=<perms>, <org>=<perms> or <perms>');
    return null;
  }
  let ok = true;
  let resource: string | undefined;
  if (eq >= 0) {
    resource = raw.slice(0, eq).replace(EDGE_SPACE, '');
    if (resource === '') {
      issues.add(path, 'empty resource before "=": write <org>/<repo>=<perms>, <org>=<perms>, or <perms> alone for all resources');
      ok = false;
    } else if (parseResource(resource) === null) {
      issues.add(path, `resource ${preview(resource)} is not "<org>" or "<org>/<repo>" with names matching ${NAME_PATTERN.source}`);
      ok = false;
    }
  }
  const items = raw.slice(eq + 1).split(',');
  const permissions: string[] = [];
  for (let j = 0; j < items.length; j++) {
    const item = (items[j] as string).replace(EDGE_SPACE, '');
    if (item === '') {
      const which = items.length === 1 ? 'no permissions given' : `empty item ${j + 1} in the permission list`;
      issues.add(path, `${which}: list permissions or role:<name>, separated by commas`);
      ok = false;
    } else {
      permissions.push(item);
    }
  }
  if (!ok) return null;
  return resource === undefined ? { permissions } : { resource, permissions };
}
