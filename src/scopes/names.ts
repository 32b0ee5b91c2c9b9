/**
 * Names of organizations, repositories and things (rule S7). Resource names
 * compare case-insensitively and are kept lowercase; thing names are
 * case-sensitive. The thing-name check runs on every request, so it is a single
 * pass over char codes with no allocation.
 * @module
 */
import { LIMITS } from './types';

/**
 * Org and repo names (S7): a letter or digit, then up to 99 letters, digits, `.`, `_` or `-`.
 *
 * @example
 * ```ts
 * NAME_PATTERN.test('web.app'); // true
 * ```
 */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * A resource split into its parts, lowercased.
 *
 * @example
 * ```ts
 * const ref: ResourceRef = { key: 'acme/web', org: 'acme', repo: 'web' };
 * ```
 */
export interface ResourceRef {
  /** `org` or `org/repo`, lowercase. */
  readonly key: string;
  readonly org: string;
  /** Present for a repository. */
  readonly repo?: string;
}

/**
 * Parse `org` or `org/repo` into a lowercase {@link ResourceRef}, or `null` when it breaks S7.
 *
 * @example
 * ```ts
 * parseResource('Acme/Web'); // { key: 'acme/web', org: 'acme', repo: 'web' }
 * parseResource('acme/');    // null
 * ```
 */
export function parseResource(resource: unknown): ResourceRef | null {
  if (typeof resource !== 'string' || resource.length > 2 * LIMITS.maxNameLength + 1) return null;
  const slash = resource.indexOf('/');
  if (slash < 0) {
    if (!NAME_PATTERN.test(resource)) return null;
    const org = resource.toLowerCase();
    return { key: org, org };
  }
  const org = resource.slice(0, slash);
  const repo = resource.slice(slash + 1);
  if (!NAME_PATTERN.test(org) || !NAME_PATTERN.test(repo)) return null;
  const o = org.toLowerCase();
  const r = repo.toLowerCase();
  return { key: `${o}/${r}`, org: o, repo: r };
}

/**
 * Does `name` follow S7 for thing names: `<Type>/<name>` (further `/` allowed),
 * at most 1024 characters, no empty, `.` or `..` segment, no control character,
 * no U+2028/U+2029 line separator, no backslash? Never throws.
 *
 * @example
 * ```ts
 * isValidThingName('Doc/readme');  // true
 * isValidThingName('Doc/../etc');  // false
 * isValidThingName('Doc');         // false: no name part
 * ```
 */
export function isValidThingName(name: unknown): name is string {
  if (typeof name !== 'string') return false;
  const n = name.length;
  if (n < 3 || n > LIMITS.maxThingNameLength) return false;
  let segStart = 0;
  let slashes = 0;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    // Printable ASCII other than the slash and backslash: almost every character, one test.
    if (c > 47 ? c < 127 && c !== 92 : c >= 32 && c !== 47) continue;
    if (c === 47) {
      if (!segmentOk(name, segStart, i)) return false;
      slashes++;
      segStart = i + 1;
      continue;
    }
    // Controls (C0, DEL, C1), the backslash, and U+2028/U+2029: JS line
    // terminators like \n, which split log lines and change what a regex `.`
    // (and so a micromatch glob) matches.
    if (c <= 0x9f || c === 0x2028 || c === 0x2029) return false;
  }
  return slashes >= 1 && segmentOk(name, segStart, n);
}

/** A segment name[s, e) that is neither empty nor `.` nor `..`. */
function segmentOk(name: string, s: number, e: number): boolean {
  const len = e - s;
  if (len === 0) return false;
  return name.charCodeAt(s) !== 46 || (len !== 1 && (len !== 2 || name.charCodeAt(s + 1) !== 46));
}
