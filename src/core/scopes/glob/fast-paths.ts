/**
 * Pattern shapes the glob matcher (matcher.ts, compile.ts) handles apart from its segment
 * walk: the common shapes it answers with one anchored RegExp or a direct
 * string test, and the shapes picomatch compiles through its own fast paths,
 * where its `(?=.)` lookahead sits elsewhere.
 * @module
 */
import type { ThingMatcher } from '../types';
import { THING_NAME_CHAR, THING_SEGMENT_START } from '../names';

const WILD = /[*?]/;
const DOT = 46;

// A name character other than `/`, and the start of a segment that is not
// empty, `.` or `..`, exactly as S7 allows them.
const SEGMENT_START = `${THING_SEGMENT_START}(?=${THING_NAME_CHAR})`;
const SEGMENT = `${SEGMENT_START}${THING_NAME_CHAR}+`;

/** The two regex sources of one anchored shape (see {@link anchoredSources}). */
interface Sources {
  /** Equivalent to the pattern on valid names (S7 leaves no line terminator for `.` to miss). */
  readonly plain: string;
  /**
   * Matches exactly the valid names the pattern matches: it checks the name
   * (S7) as it matches, so one test both validates and matches
   * (`policy/fold.ts`). Names of 3 to 1024 characters: the length is checked
   * apart. Linear: every `+` or `*` is over a class without `/`, after a `/`
   * or a literal.
   */
  readonly validating: string;
}

/**
 * For `Lit`, `Lit/**` and `Lit/H*T` (`Lit`, `H`, `T` literal, `Lit` not
 * empty): its regex sources, or undefined for any other shape. Pattern
 * literals are `[A-Za-z0-9._~,:=-]` and `/`; only `.` needs escaping.
 */
function anchoredSources(pattern: string): Sources | undefined {
  const esc = (t: string): string => t.replace(/\./g, '\\.');
  if (!WILD.test(pattern)) {
    // A valid name has a slash; a literal pattern without one matches no valid name.
    return { plain: esc(pattern), validating: pattern.includes('/') ? esc(pattern) : '(?!)' };
  }
  if (pattern.endsWith('/**')) {
    const lit = pattern.slice(0, -3);
    if (WILD.test(lit)) return undefined;
    return { plain: `${esc(lit)}(?:/.*)?`, validating: `${esc(lit)}(?:/${SEGMENT})${lit.includes('/') ? '*' : '+'}` };
  }
  const slash = pattern.lastIndexOf('/');
  const dir = pattern.slice(0, slash + 1);
  const seg = pattern.slice(slash + 1);
  const star = seg.indexOf('*');
  if (slash < 0 || WILD.test(dir) || seg.includes('?') || star < 0 || seg.indexOf('*', star + 1) >= 0) return undefined;
  const head = esc(seg.slice(0, star));
  const tail = esc(seg.slice(star + 1));
  return { plain: `${esc(dir)}${head}[^/]*${tail}`, validating: `${esc(dir)}${SEGMENT_START}${head}${THING_NAME_CHAR}*${tail}` };
}

/**
 * A direct test for `**` and `**\/H*T` (`H`, `T` literal), the common shapes
 * {@link anchoredSources} leaves, or undefined. Valid names hold no empty
 * segment, so micromatch's `(?=.)` guard before the star always holds here.
 */
function specialise(pattern: string): ThingMatcher | undefined {
  if (pattern === '**') return () => true;
  if (!pattern.startsWith('**/')) return undefined;
  const seg = pattern.slice(3);
  const star = seg.indexOf('*');
  if (seg.includes('/') || seg.includes('?') || star < 0 || seg.indexOf('*', star + 1) >= 0) return undefined;
  const head = seg.slice(0, star);
  const tail = seg.slice(star + 1);
  const least = head.length + tail.length;
  return (n) => {
    const at = n.lastIndexOf('/') + 1;
    return n.length - at >= least && n.startsWith(head, at) && n.endsWith(tail);
  };
}

/**
 * @internal The RegExp source (unanchored, one group) of a matcher that is one
 * safe RegExp and nothing else, so that the policy layer can fold the matchers
 * of several layers into one RegExp of lookaheads (see `policy/fold.ts`).
 *
 * @example
 * ```ts
 * const m = compileMatcherForValidNames(['Doc/*']);
 * REGEX_SOURCE.get(m); // '(?:Doc/[^/]*)'
 * ```
 */
export const REGEX_SOURCE = new WeakMap<ThingMatcher, string>();

/**
 * @internal Beside {@link REGEX_SOURCE}: the source (unanchored, one group) that
 * matches exactly the valid thing names (S7, length apart) the matcher
 * accepts, so that one RegExp can validate and match at once.
 *
 * @example
 * ```ts
 * const m = compileMatcherForValidNames(['Doc/*']);
 * new RegExp(`^${VALIDATING_SOURCE.get(m)}$`).test('Doc/..'); // false: not a valid name
 * ```
 */
export const VALIDATING_SOURCE = new WeakMap<ThingMatcher, string>();

/**
 * Split accepted, distinct patterns into direct tests for the common shapes
 * (all the anchored ones joined into one RegExp, first) and the patterns left
 * for the segment walk. The tests are exact on valid thing names (S7) only.
 *
 * @example
 * ```ts
 * const { tests, rest } = compileShapes(['Doc/*', '**', 'Doc/*\/x']);
 * // tests: [/^(?:Doc\/[^/]*)$/ as a test, () => true]; rest: ['Doc/*\/x']
 * ```
 */
export function compileShapes(patterns: Iterable<string>): { tests: ThingMatcher[]; rest: string[] } {
  const tests: ThingMatcher[] = [];
  const rest: string[] = [];
  const alternatives: string[] = [];
  const validating: string[] = [];
  for (const p of patterns) {
    const sources = anchoredSources(p);
    if (sources !== undefined) {
      alternatives.push(sources.plain);
      validating.push(sources.validating);
      continue;
    }
    const t = specialise(p);
    if (t !== undefined) tests.push(t);
    else rest.push(p);
  }
  if (alternatives.length > 0) {
    // Each alternative starts with a literal and holds at most one `[^/]*` or
    // `.*` with only literals after it, so the RegExp runs in O(alternatives x
    // name length): no nested or adjacent quantifiers to backtrack through.
    const source = `(?:${alternatives.join('|')})`;
    const re = new RegExp(`^${source}$`);
    const test: ThingMatcher = (n) => re.test(n);
    if (tests.length === 0 && rest.length === 0) {
      REGEX_SOURCE.set(test, source);
      VALIDATING_SOURCE.set(test, `(?:${validating.join('|')})`);
    }
    tests.unshift(test);
  }
  return { tests, rest };
}

/** Fast-path bases of picomatch 2.3 that span segments (`parse.fastpaths`). */
const FAST_BASES = new Set(['*/*', '**/*', '**/*.*', '**/.*']);

/**
 * The fast-path base picomatch compiles `pattern` with instead of its parser, or
 * undefined: a base above followed by any number of `.<word chars>` suffixes.
 */
function fastBase(pattern: string): string | undefined {
  let p = pattern;
  for (;;) {
    if (FAST_BASES.has(p)) return p;
    const dot = p.lastIndexOf('.');
    if (dot < 0 || dot === p.length - 1 || !/^\w+$/.test(p.slice(dot + 1))) return undefined;
    p = p.slice(0, dot);
  }
}

/**
 * Which stars of `pattern` micromatch guards with `(?=.)`: given segment `i`
 * (text `text`, not `**`), whether its star at index `j` is guarded. The
 * ordinary parse guards a star that opens a segment or follows the dot that
 * opens it; the fast paths differ: `*\/*` leaves the first segment's star
 * unguarded, `**\/*.*` guards the star after the dot instead.
 *
 * @example
 * ```ts
 * starGuards('Doc/*')('*', 1)(0);     // true
 * starGuards('**\/*.*')('*.*', 1)(0); // false
 * ```
 */
export function starGuards(pattern: string): (text: string, i: number) => (j: number) => boolean {
  const base = fastBase(pattern);
  return (text, i) => {
    if (base === '*/*' && i === 0) return () => false;
    if (base === '**/*.*') return (j) => j === 2;
    return (j) => j === 0 || (j === 1 && text.charCodeAt(0) === DOT);
  };
}
