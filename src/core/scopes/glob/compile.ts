/**
 * Compiling one S6 pattern for the segment walk (match.ts): its words
 * (segment patterns) with their anchors, and the split around its first and
 * last `**`, all found once per token so that matching allocates nothing.
 * @module
 */
import { starGuards } from './fast-paths';

export const STAR = 42;
export const QMARK = 63;

/** `**` in a compiled pattern. */
export const GLOBSTAR = null;

/**
 * Code standing for a `*` behind micromatch's `(?=.)` lookahead: where it
 * starts, the name segment must go on with one more character (valid names
 * hold no line terminator for `.` to miss). Never a pattern character
 * (checkPattern rejects controls).
 */
export const GUARDED_STAR = 1;

/** One segment pattern other than `**`, with its anchors found at compile time. */
export interface Word {
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
export interface Compiled {
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

/** Compile one accepted pattern (checkPattern has passed it). */
export function compileOne(pattern: string): Compiled {
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
