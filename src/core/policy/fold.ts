/**
 * Folding the thing-name matchers of several scope layers into one call.
 * Internal to the policy layer: not exported from the package root.
 * @module
 */
import { LIMITS, REGEX_SOURCE, VALIDATING_SOURCE, type ThingMatcher } from '../scopes';

/** Folded matchers by RegExp text, shared by every grant (pure and bounded). */
const FOLDED = new Map<string, ThingMatcher>();
const MAX_FOLDED = 1024;

/**
 * The matchers of several layers (all must pass) as one call when each is a
 * single safe RegExp: one RegExp of lookaheads, one per layer. JS lookaheads
 * are atomic, so the cost stays the sum of the parts (S6). Measured in
 * bench/policy.bench.ts: the thing-name path of a two-layer PAT was 1.5x the
 * floor's single RegExp with one matcher call per layer.
 *
 * @example
 * ```ts
 * const [both] = fold([compileMatcherForValidNames(['Doc/**']), compileMatcherForValidNames(['Doc/*'])]);
 * both('Doc/readme'); // true
 * both('Doc/a/b');    // false: the second layer refuses it
 * ```
 */
export function fold(ms: ThingMatcher[]): readonly ThingMatcher[] {
  if (ms.length < 2) return ms;
  const text = allOf(ms, REGEX_SOURCE);
  if (text === undefined) return ms;
  return [
    shared(FOLDED, text, () => {
      const re = new RegExp(text);
      return (n) => re.test(n);
    }),
  ];
}

/** Validating folds by RegExp text, shared by every grant (pure and bounded). */
const WHOLE = new Map<string, ThingMatcher>();
const MIN_THING = 3;
const MAX_THING = LIMITS.maxThingNameLength;

/**
 * The matchers of one or more layers, and the S7 check of the name, as one
 * RegExp test: it passes exactly the valid thing names that every matcher
 * accepts. `null` when a matcher is not a single safe RegExp. `authorize`
 * answers ALLOW on a pass without scanning the name again; on a miss it
 * checks the name to tell `invalid` from `thing`.
 *
 * @example
 * ```ts
 * const whole = foldValidating([compileMatcherForValidNames(['Doc/**']), compileMatcherForValidNames(['Doc/*'])]);
 * whole?.('Doc/readme'); // true
 * whole?.('Doc/../etc'); // false: not a valid name
 * ```
 */
export function foldValidating(ms: readonly ThingMatcher[]): ThingMatcher | null {
  if (ms.length === 0) return null;
  const text = allOf(ms, VALIDATING_SOURCE);
  if (text === undefined) return null;
  return shared(WHOLE, text, () => {
    const re = new RegExp(text);
    // The length bounds of S7 are the one part of the check the RegExp leaves out.
    return (n) => n.length >= MIN_THING && n.length <= MAX_THING && re.test(n);
  });
}

/**
 * `^(?=a$)(?=b$)c$`: the anchored text that passes what every source passes,
 * or undefined when a matcher has no source in `sources`.
 */
function allOf(ms: readonly ThingMatcher[], sources: WeakMap<ThingMatcher, string>): string | undefined {
  const parts: string[] = [];
  for (const m of ms) {
    const source = sources.get(m);
    if (source === undefined) return undefined;
    parts.push(source);
  }
  const last = parts.pop() as string;
  return `^${parts.map((x) => `(?=${x}$)`).join('')}${last}$`;
}

/** The matcher for `text` from `memo`, made once; the oldest goes when the memo is full. */
function shared(memo: Map<string, ThingMatcher>, text: string, make: () => ThingMatcher): ThingMatcher {
  let m = memo.get(text);
  if (m === undefined) {
    m = make();
    if (memo.size >= MAX_FOLDED) memo.delete(memo.keys().next().value as string);
    memo.set(text, m);
  }
  return m;
}
