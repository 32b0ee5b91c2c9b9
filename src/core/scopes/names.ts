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

// S7 as one RegExp, tested after the length bounds: segments of printable ASCII
// but the backslash, or code units above U+009F but the line terminators
// U+2028/U+2029 (they split log lines and change what a regex `.`, and so a
// micromatch glob, matches); no segment empty, `.` or `..`; at least one `/`.
// Linear: each `+` runs over a class without `/`, and only after a `/` or the
// start. The engine's compiled class test outruns a charCodeAt loop here.

/** @internal RegExp source of one character of a thing-name segment (S7). */
export const THING_NAME_CHAR = '[ -.0-\\[\\]-~\\u00a0-\\u2027\\u202a-\\uffff]';
/** @internal RegExp source of the start of a segment that is neither `.` nor `..` (S7). */
export const THING_SEGMENT_START = '(?!\\.\\.?(?:/|$))';
const THING_SEGMENT = `${THING_SEGMENT_START}${THING_NAME_CHAR}+`;
const THING_NAME = new RegExp(`^${THING_SEGMENT}(?:/${THING_SEGMENT})+$`);

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
  return n >= 3 && n <= LIMITS.maxThingNameLength && THING_NAME.test(name);
}
