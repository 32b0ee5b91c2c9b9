/**
 * The safe glob subset of rule S6 and its matcher.
 *
 * TEMPORARY implementation of compileMatcher (micromatch-based); the linear-time
 * matcher replaces it. The exported signatures are the contract.
 * @module
 */
import micromatch from 'micromatch';
import { LIMITS } from './types';

const SEGMENT = /^(?:\*\*|(?:[A-Za-z0-9._~,:=\-?]|\*(?!\*))+)$/;

/**
 * Why `pattern` is outside the safe subset of S6, or `null` when it is accepted.
 *
 * @example
 * ```ts
 * checkPattern('Doc/**');   // null
 * checkPattern('Doc/{a,b}'); // 'pattern segment 2 ...'
 * ```
 */
export function checkPattern(pattern: unknown): string | null {
  if (typeof pattern !== 'string') return 'pattern must be a string';
  if (pattern.length === 0) return 'pattern is empty';
  if (pattern.length > LIMITS.maxPatternLength) return `pattern is longer than ${LIMITS.maxPatternLength} characters`;
  const segments = pattern.split('/');
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i] as string;
    if (s === '') return `pattern has an empty segment (leading, trailing or double "/") at segment ${i + 1}`;
    if (s === '.' || s === '..') return `pattern segment ${i + 1} is "${s}"`;
    if (!SEGMENT.test(s)) {
      return `pattern segment ${i + 1} is not allowed: use letters, digits and . _ ~ , : = - with * and ?, or ** alone`;
    }
  }
  return null;
}

/** A compiled set of patterns: true when a thing name matches at least one. */
export type ThingMatcher = (thingName: string) => boolean;

/**
 * Compile accepted patterns (see {@link checkPattern}) into one matcher. An empty
 * list matches nothing. Patterns must already be checked.
 *
 * @example
 * ```ts
 * const m = compileMatcher(['Doc/*', 'Img/**']);
 * m('Doc/readme'); // true
 * m('Doc/a/b');    // false
 * ```
 */
export function compileMatcher(patterns: readonly string[]): ThingMatcher {
  if (patterns.length === 0) return () => false;
  const ms = patterns.map((p) => micromatch.matcher(p, { dot: true }));
  return (name) => ms.some((f) => f(name));
}
