/**
 * The safe glob subset of rule S6 and its matcher.
 *
 * Patterns come from token creators and names from requests, so the matcher
 * must not be a backtracking regex (micromatch's compiled regexes take seconds
 * on `**\/*a*a*a*a*a*a*a*b` against 40 `a`s). It runs a set of reachable name
 * segments through the pattern's segments: O(pattern length x name length),
 * no RegExp, no allocation per call once warm.
 *
 * micromatch (`dot: true`) defines what a pattern means, quirks included, on
 * valid thing names (S7); the property tests hold the two equal. The quirks
 * that show on valid names, read from picomatch 2.3's generated regexes:
 * - a trailing `/**` right after a segment ending in `*` (`Doc/*\/**`) needs at
 *   least one more segment, while `Doc/x/**` also matches `Doc/x`;
 * - a segment pattern starting with `*` (or `.*`) adds a `(?=.)` lookahead,
 *   which always holds on valid names (no segment is empty or `.`), but the
 *   patterns picomatch compiles through its fast paths (`*\/*`, `**\/*.*` and
 *   those with `.ext` suffixes) place it differently: `**\/*.*` does not match
 *   `Doc/a.` although `Doc/*.*` does.
 * Its quirks on JS line terminators (regex `.`, so `*`, `?` and `**`, misses
 * CR, LF, U+2028 and U+2029) cannot show: S7 makes such names invalid.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import { isValidThingName } from './names';
import { compileShapes, starGuards } from './glob-shapes';
import { checkPattern } from './pattern';
import { LIMITS, type ThingMatcher } from './types';

// Re-exported: callers have always found the pattern check beside the matcher.
export { checkPattern };

const SLASH = 47;
const STAR = 42;
const QMARK = 63;

export type { ThingMatcher };

/** `**` in a compiled pattern. */
const GLOBSTAR = null;

/**
 * Code standing for a `*` behind micromatch's `(?=.)` lookahead: where it
 * starts, the name segment must go on with one more character (valid names
 * hold no line terminator for `.` to miss). Never a pattern character
 * (checkPattern rejects controls).
 */
const GUARDED_STAR = 1;

/** One segment pattern other than `**`, with its anchors found at compile time. */
interface Word {
  /** The segment, with each guarded `*` replaced by {@link GUARDED_STAR}. */
  readonly text: string;
  /** Index of the first star, or the length when there is none. */
  readonly head: number;
  /** Index after the last star, or the length when there is none. */
  readonly tail: number;
  /** Characters other than stars: the shortest name segment it can match. */
  readonly least: number;
  /**
   * The literal runs between the stars of text[head, tail), when none holds a
   * `?`: then the middle is placed leftmost with `indexOf`, linear in practice
   * where the two-pointer walk is O(|word| x |segment|) on `*aaa…ab*`.
   */
  readonly runs: readonly string[] | null;
  /** Per star: whether it is guarded. */
  readonly guards: readonly boolean[];
}

/**
 * One pattern, split once at compile time around its first and last `**`:
 * the words before the first are anchored at the name's start, the words after
 * the last at its end, and only the middle needs the set-of-positions walk.
 */
interface Compiled {
  /** Words before the first `**` (all of them when there is none). */
  readonly pre: readonly Word[];
  /** From the first `**` to the last, inclusive ({@link GLOBSTAR} for `**`); empty when there is none. */
  readonly mid: readonly (Word | null)[];
  /** Per `mid` entry: fewest name segments a `**` spans (1 for micromatch's `X*\/**` at the end). */
  readonly least: readonly number[];
  /** Words after the last `**`. */
  readonly post: readonly Word[];
  /** Literal text every matching name starts with (a quick reject before any scan). */
  readonly prefix: string;
  /** Literal text every matching name ends with. */
  readonly suffix: string;
}

/**
 * The literal text before the first wildcard, or after the last one (`fromEnd`).
 * The `/` beside a `**` is left out: `Doc/x/**` also matches `Doc/x`.
 */
function literalEdge(pattern: string, fromEnd: boolean): string {
  const n = pattern.length;
  let i = 0;
  while (i < n) {
    const c = pattern.charCodeAt(fromEnd ? n - 1 - i : i);
    if (c === STAR || c === QMARK) break;
    i++;
  }
  let edge = fromEnd ? pattern.slice(n - i) : pattern.slice(0, i);
  const touchesGlobstar = fromEnd ? pattern.slice(0, n - i).endsWith('**') : pattern.slice(i).startsWith('**');
  if (touchesGlobstar && edge.length > 0) edge = fromEnd ? edge.slice(1) : edge.slice(0, -1);
  return edge;
}

/** `guarded[i]` says whether the star at index i of `text` is guarded. */
function compileWord(text: string, guarded: (i: number) => boolean): Word {
  let out = '';
  let head = -1;
  let tail = -1;
  let stars = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== STAR) {
      out += text.charAt(i);
      continue;
    }
    out += guarded(i) ? String.fromCharCode(GUARDED_STAR) : '*';
    if (head < 0) head = i;
    tail = i + 1;
    stars++;
  }
  const n = text.length;
  const h = head < 0 ? n : head;
  const t = tail < 0 ? n : tail;
  const guards: boolean[] = [];
  for (let i = 0; i < n; i++) if (text.charCodeAt(i) === STAR) guards.push(guarded(i));
  const middle = text.slice(h, t);
  const runs = middle.includes('?') ? null : middle.split('*').slice(1, -1);
  return { text: out, head: h, tail: t, least: n - stars, runs, guards };
}

function compileOne(pattern: string): Compiled {
  const texts: string[] = [];
  for (const s of pattern.split('/')) {
    // picomatch strips `/**` after `**`; merging is also what keeps `**/**/**/x` cheap.
    if (s !== '**' || texts[texts.length - 1] !== '**') texts.push(s);
  }
  const k = texts.length;
  const guardOf = starGuards(pattern);
  const segs = texts.map((t, i) => (t === '**' ? GLOBSTAR : compileWord(t, guardOf(t, i))));
  const first = texts.indexOf('**');
  const prefix = literalEdge(pattern, false);
  const suffix = literalEdge(pattern, true);
  if (first < 0) return { pre: segs as Word[], mid: [], least: [], post: [], prefix, suffix };
  const last = texts.lastIndexOf('**');
  const mid = segs.slice(first, last + 1);
  const least = mid.map(() => 0);
  const before = texts[k - 2];
  if (last === k - 1 && before !== undefined && before !== '**' && before.endsWith('*')) least[least.length - 1] = 1;
  return { pre: segs.slice(0, first) as Word[], mid, least, post: segs.slice(last + 1) as Word[], prefix, suffix };
}

/** Literal-or-`?` comparison of `text[from, from + len)` with `name` at `at`. */
function sameRun(text: string, from: number, len: number, name: string, at: number): boolean {
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(from + i);
    if (c !== QMARK && c !== name.charCodeAt(at + i)) return false;
  }
  return true;
}

/**
 * Wildcard match of one segment pattern against `name[s, e)` of a valid
 * name. The text before the first star and after the last is anchored;
 * between them, two pointers
 * with a single backtrack point (the last star): O(|word| x (e - s)). A guard
 * is a one-character lookahead, so it only narrows where the chunk before a
 * guarded star may sit, and leftmost placement stays optimal.
 */
function matchWord(w: Word, name: string, s: number, e: number): boolean {
  const len = e - s;
  if (len < w.least) return false;
  const text = w.text;
  const wl = text.length;
  const { head, tail } = w;
  if (head === wl) return len === wl && sameRun(text, 0, wl, name, s);
  const after = wl - tail;
  if (!sameRun(text, 0, head, name, s) || !sameRun(text, tail, after, name, e - after)) return false;
  // The middle text[head, tail) starts and ends with a star.
  const end = e - after;
  if (w.runs !== null) return placeRuns(w.runs, w.guards, name, s + head, end, e);
  let pi = head;
  let ni = s + head;
  let starP = -1;
  let starN = ni;
  while (ni < end) {
    if (pi < tail) {
      const c = text.charCodeAt(pi);
      if (c === STAR || c === GUARDED_STAR) {
        starP = pi++;
        starN = ni;
        continue;
      }
      if (c === QMARK || c === name.charCodeAt(ni)) {
        pi++;
        ni++;
        continue;
      }
    }
    if (starP < 0) return false;
    pi = starP + 1;
    ni = ++starN;
  }
  // Stars left over start at `end`; the chunks before them sat leftmost, so no earlier start exists.
  for (; pi < tail; pi++) {
    const c = text.charCodeAt(pi);
    if (c === GUARDED_STAR ? end >= e : c !== STAR) return false;
  }
  return true;
}

/**
 * Place each run leftmost in name[from, end) with `indexOf`; leftmost is
 * optimal since later runs only need room after earlier ones. Names reaching
 * here are valid (S7: no line terminator), so a guard only needs the star to
 * start before the segment's end `e`.
 */
function placeRuns(runs: readonly string[], guards: readonly boolean[], name: string, from: number, end: number, e: number): boolean {
  let pos = from;
  if (guards[0] === true && pos >= e) return false;
  for (let i = 0; i < runs.length; i++) {
    const r = runs[i] as string;
    const at = name.indexOf(r, pos);
    if (at < 0 || at + r.length > end) return false;
    pos = at + r.length;
    if (guards[i + 1] === true && pos >= e) return false;
  }
  return true;
}

/** Scratch space of one matcher, sized for the longest valid name (S7). */
interface Scratch {
  /** starts[j]: index of segment j; starts[m] = name.length + 1. */
  readonly starts: Int16Array;
  /** reach[j]: the pattern so far can end just before segment j. */
  readonly reach: Uint8Array;
}

function newScratch(): Scratch {
  const size = (LIMITS.maxThingNameLength >> 1) + 2;
  return { starts: new Int16Array(size), reach: new Uint8Array(size) };
}

/** Split `name` into segments in `sc`; returns the segment count. */
function scan(name: string, sc: Scratch): number {
  const starts = sc.starts;
  const n = name.length;
  let m = 0;
  starts[m++] = 0;
  for (let i = 0; i < n; i++) if (name.charCodeAt(i) === SLASH) starts[m++] = i + 1;
  starts[m] = n + 1;
  return m;
}

/** Does `w` match segment `j` of the scanned name? */
function wordAt(w: Word, name: string, starts: Int16Array, j: number): boolean {
  return matchWord(w, name, starts[j] as number, (starts[j + 1] as number) - 1);
}

/** Does one compiled pattern match the scanned name of `m` segments? */
function run(p: Compiled, name: string, m: number, sc: Scratch): boolean {
  const { pre, mid, post } = p;
  const np = pre.length;
  const nq = post.length;
  const starts = sc.starts;
  if (mid.length === 0 ? m !== np : np + nq > m) return false;
  for (let i = 0; i < np; i++) if (!wordAt(pre[i] as Word, name, starts, i)) return false;
  const b = m - nq;
  for (let i = 0; i < nq; i++) if (!wordAt(post[i] as Word, name, starts, b + i)) return false;
  if (mid.length === 0) return true;
  // The common case: one `**` takes segments np..b-1.
  if (mid.length === 1) return b - np >= (p.least[0] as number);
  return walk(p, name, np, b, sc);
}

/**
 * The middle of a pattern (first to last `**`) against segments [a, b): a set
 * of positions it can have reached, one pass over the segments per pattern
 * segment, so O(|mid| x (b - a)) plus the word matches.
 */
function walk(p: Compiled, name: string, a: number, b: number, sc: Scratch): boolean {
  const { starts, reach } = sc;
  for (let j = a; j <= b; j++) reach[j] = 0;
  reach[a] = 1;
  const k = p.mid.length;
  for (let i = 0; i < k; i++) {
    const word = p.mid[i] as Word | null;
    let any = 0;
    if (word === GLOBSTAR) {
      // reach'[j] = reach[j] (zero segments, unless at least one is needed), or
      // some reach[i'] with i' < j.
      const keep = p.least[i] === 0;
      let carry = 0;
      for (let j = a; j <= b; j++) {
        const r = reach[j] as number;
        const v = carry | (keep ? r : 0);
        reach[j] = v;
        any |= v;
        carry = j < b ? carry | r : 0;
      }
    } else {
      for (let j = b - 1; j >= a; j--) {
        const v = reach[j] === 1 && wordAt(word, name, starts, j) ? 1 : 0;
        reach[j + 1] = v;
        any |= v;
      }
      reach[a] = 0;
    }
    if (any === 0) return false;
  }
  return reach[b] === 1;
}

/**
 * Compile patterns accepted by {@link checkPattern} into one matcher: true when
 * a thing name matches at least one pattern, with micromatch's meaning under
 * `{ dot: true }` (case-sensitive, `*` and `?` stay inside a segment and match a
 * leading dot, `**` is any number of whole segments, so `Doc/x/**` also matches
 * `Doc/x`). An empty list matches nothing; a name that is not a valid thing name
 * (S7) matches nothing. The matcher never throws, and its cost is bounded by
 * pattern length x name length: safe for patterns written by token creators.
 *
 * @throws {ValidationError} when `patterns` is not an array of accepted patterns
 *   (`issues[].path` is `[index]`).
 * @example
 * ```ts
 * const m = compileMatcher(['Doc/*', 'Img/**']);
 * m('Doc/readme'); // true
 * m('Doc/a/b');    // false
 * m('Img/a/b.png'); // true
 * ```
 */
export function compileMatcher(patterns: readonly string[]): ThingMatcher {
  const inner = compileMatcherForValidNames(patterns);
  return (thingName: string): boolean => isValidThingName(thingName) && inner(thingName);
}

/**
 * @internal {@link compileMatcher} for callers that have already checked the
 * name with `isValidThingName` (authorize checks once per decision, however
 * many layers restrict it). On anything else the answer is meaningless.
 *
 * @throws {ValidationError} as {@link compileMatcher}.
 * @example
 * ```ts
 * const m = compileMatcherForValidNames(['Doc/*']);
 * if (isValidThingName(name) && m(name)) { ... }
 * ```
 */
export function compileMatcherForValidNames(patterns: readonly string[]): ThingMatcher {
  if (!Array.isArray(patterns)) throw new ValidationError('patterns must be an array of glob patterns');
  const issues: IssueInput[] = [];
  const unique = new Set<string>();
  for (let i = 0; i < patterns.length; i++) {
    const p: unknown = patterns[i];
    const why = checkPattern(p);
    if (why !== null) issues.push({ path: `[${i}]`, message: why });
    else unique.add(p as string);
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const { tests, rest } = compileShapes(unique);
  const general = rest.map(compileOne);
  if (general.length > 0) tests.push(generalMatcher(general));
  if (tests.length === 0) return () => false;
  if (tests.length === 1) return tests[0] as ThingMatcher;
  if (tests.length === 2) {
    const [a, b] = tests as [ThingMatcher, ThingMatcher];
    return (n) => a(n) || b(n);
  }
  return (n) => {
    for (let i = 0; i < tests.length; i++) if ((tests[i] as ThingMatcher)(n)) return true;
    return false;
  };
}

/** The segment walk for the patterns `compileShapes` leaves. */
function generalMatcher(compiled: readonly Compiled[]): ThingMatcher {
  let sc: Scratch | undefined;
  return (thingName: string): boolean => {
    let m = -1;
    for (let i = 0; i < compiled.length; i++) {
      const p = compiled[i] as Compiled;
      if (!thingName.startsWith(p.prefix) || !thingName.endsWith(p.suffix)) continue;
      if (m < 0) {
        sc ??= newScratch();
        m = scan(thingName, sc);
      }
      if (run(p, thingName, m, sc as Scratch)) return true;
    }
    return false;
  };
}
