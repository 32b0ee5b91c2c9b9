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
import { ValidationError, type IssueInput } from '../../../errors';
import { compileOne, type Compiled } from './compile';
import { compileShapes } from './fast-paths';
import { newScratch, run, scan, type Scratch } from './match';
import { checkPattern } from '../pattern';
import type { ThingMatcher } from '../types';

// Re-exported: callers have always found the pattern check beside the matcher.
export { checkPattern };

export type { ThingMatcher };

/**
 * Compile patterns accepted by {@link checkPattern} into one matcher of thing
 * names: true when a name matches at least one pattern, with micromatch's
 * meaning under `{ dot: true }` (case-sensitive, `*` and `?` stay inside a
 * segment and match a leading dot, `**` is any number of whole segments, so
 * `Doc/x/**` also matches `Doc/x`). An empty list matches nothing. The matcher
 * never throws, and its cost is bounded by pattern length x name length: safe
 * for patterns written by token creators.
 *
 * The caller checks the name with `isValidThingName` first (S7): authorize
 * checks once per decision, however many layers restrict it. On a name that
 * is not valid the answer is meaningless.
 *
 * @throws {ValidationError} when `patterns` is not an array of accepted patterns
 *   (`issues[].path` is `[index]`).
 * @example
 * ```ts
 * const m = compileMatcherForValidNames(['Doc/*', 'Img/**']);
 * isValidThingName('Doc/readme') && m('Doc/readme'); // true
 * m('Doc/a/b');     // false
 * m('Img/a/b.png'); // true
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
