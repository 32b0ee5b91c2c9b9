/**
 * The segment walk of the glob matcher: a compiled pattern (compile.ts)
 * against a valid thing name, O(pattern length x name length), no RegExp and,
 * with the scratch buffers reused, no allocation per call.
 * @module
 */
import { GLOBSTAR, GUARDED_STAR, QMARK, STAR, type Compiled, type Word } from './compile';
import { LIMITS } from '../types';

const SLASH = 47;

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
export interface Scratch {
  /** starts[j]: index of segment j; starts[m] = name.length + 1. */
  readonly starts: Int16Array;
  /** reach[j]: the pattern so far can end just before segment j. */
  readonly reach: Uint8Array;
}

export function newScratch(): Scratch {
  const size = (LIMITS.maxThingNameLength >> 1) + 2;
  return { starts: new Int16Array(size), reach: new Uint8Array(size) };
}

/** Split `name` into segments in `sc`; returns the segment count. */
export function scan(name: string, sc: Scratch): number {
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
export function run(p: Compiled, name: string, m: number, sc: Scratch): boolean {
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
