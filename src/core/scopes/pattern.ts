/**
 * The accepted syntax of `allowedMatches` patterns (rule S6), checked once when
 * scopes are normalized or compiled. What a pattern means lives in `./glob`.
 * @module
 */
import { LIMITS } from './types';

const SLASH = 47;
const STAR = 42;
const QMARK = 63;
const DOT = 46;

/** One code unit per ASCII char allowed as a literal in a segment (S6). */
const LITERAL = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~,:=-') LITERAL[c.charCodeAt(0)] = 1;

/**
 * Why `pattern` is outside the safe subset of S6, or `null` when it is accepted.
 * Accepted: 1-256 characters of `/`-separated segments, each `**` alone, or
 * literals from `[A-Za-z0-9._~,:=-]` mixed with `*` and `?` (no `**` inside a
 * segment, no `.` or `..` segment, no empty segment). Never throws.
 *
 * @example
 * ```ts
 * checkPattern('Doc/**');    // null
 * checkPattern('Doc/{a,b}'); // 'pattern segment 2 has "{" ...'
 * checkPattern('Doc/a**');   // 'pattern segment 2 ...: "**" must stand alone'
 * ```
 */
export function checkPattern(pattern: unknown): string | null {
  if (typeof pattern !== 'string') return 'pattern must be a string';
  const n = pattern.length;
  if (n === 0) return 'pattern is empty';
  if (n > LIMITS.maxPatternLength) return `pattern is longer than ${LIMITS.maxPatternLength} characters`;
  let seg = 1;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i === n ? SLASH : pattern.charCodeAt(i);
    if (c === SLASH) {
      const len = i - start;
      if (len === 0) return `pattern has an empty segment (leading, trailing or double "/") at segment ${seg}`;
      if (pattern.charCodeAt(start) === DOT && (len === 1 || (len === 2 && pattern.charCodeAt(start + 1) === DOT))) {
        return `pattern segment ${seg} is "${len === 1 ? '.' : '..'}"`;
      }
      seg++;
      start = i + 1;
    } else if (c === STAR) {
      if (i + 1 < n && pattern.charCodeAt(i + 1) === STAR) {
        const alone = i === start && (i + 2 === n || pattern.charCodeAt(i + 2) === SLASH);
        if (!alone) return `pattern segment ${seg} is not allowed: "**" must stand alone as a whole segment`;
        i++;
      }
    } else if (c !== QMARK && (c >= 128 || LITERAL[c] !== 1)) {
      return `pattern segment ${seg} has ${describeChar(pattern, i)} at position ${i + 1}: use letters, digits and . _ ~ , : = - with * and ?, or ** alone`;
    }
  }
  return null;
}

function describeChar(s: string, i: number): string {
  const c = s.charCodeAt(i);
  if (c < 32 || c === 127) return `control character U+${c.toString(16).padStart(4, '0').toUpperCase()}`;
  if (c === 32) return 'a space';
  const cp = s.codePointAt(i) ?? c;
  return `"${String.fromCodePoint(cp)}"`;
}
