import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import micromatch from 'micromatch';
import { checkPattern } from '../../../src/core/scopes/glob';
import { compileMatcherForValidNames, isValidThingName, type ThingMatcher } from '../../../src/core/scopes';
import { ValidationError } from '../../../src/errors';
import { caught } from '../../support/errors';

/** The reference meaning of S6: micromatch with `dot: true`. */
const reference = (name: string, pattern: string): boolean => micromatch.isMatch(name, pattern, { dot: true });

const LS = '\u2028';

/**
 * The patterns' matcher as authorize uses it: the name checked once (S7), then matched. So the
 * cases below hold both halves: what a valid name matches, and that no other name matches.
 */
function compileMatcher(patterns: readonly string[]): ThingMatcher {
  const m = compileMatcherForValidNames(patterns);
  return (thingName) => isValidThingName(thingName) && m(thingName);
}

describe('checkPattern (S6 subset)', () => {
  it.each([
    'Doc/*',
    'Doc/**',
    '**/*.md',
    '**',
    'Doc/readme',
    'Doc/?x*',
    'Doc/*/**',
    'a/**/b',
    '**/**/x',
    '.hidden/*',
    'Doc/.*',
    'Doc/..x',
    'A-Z_0.9~,:=-/x',
    'Doc/' + 'a'.repeat(252),
  ])('S6: accepts %j', (p) => {
    expect(checkPattern(p)).toBeNull();
  });

  it.each([
    ['braces', 'Doc/{a,b}'],
    ['brace range', 'Doc/{1..9}'],
    ['extglob +(a)', 'Doc/+(a)'],
    ['extglob @(a)', 'Doc/@(a)'],
    ['extglob !(a)', 'Doc/!(a)'],
    ['extglob ?(a)', 'Doc/?(a)'],
    ['extglob *(a)', 'Doc/*(a)'],
    ['brackets', 'Doc/[ab]'],
    ['posix class', 'Doc/[[:alpha:]]'],
    ['negation !neg', '!Doc/*'],
    ['double quote', 'Doc/"a"'],
    ['single quote', "Doc/'a'"],
    ['backslash', 'Doc/\\*'],
    ['space', 'Doc/a b'],
    ['tab', 'Doc/a\tb'],
    ['non-ASCII letter', 'Doc/é'],
    ['line separator', `Doc/${LS}`],
    ['a**', 'Doc/a**'],
    ['**a', 'Doc/**a'],
    ['***', 'Doc/***'],
    ['empty', ''],
    ['. segment', 'Doc/./x'],
    ['.. segment', 'Doc/../x'],
    ['lone .', '.'],
    ['lone ..', '..'],
    ['leading ./', './Doc/*'],
    ['trailing /', 'Doc/'],
    ['leading /', '/Doc/*'],
    ['double /', 'Doc//x'],
    ['257 chars', 'Doc/' + 'a'.repeat(253)],
    ['regex syntax', 'Doc/a+|b$'],
    ['parentheses', 'Doc/(a)'],
    ['pipe', 'Doc/a|b'],
  ])('S6: rejects %s', (_attack, p) => {
    expect(checkPattern(p)).toEqual(expect.any(String));
  });

  it.each([[undefined], [null], [42], [['Doc/*']], [{ toString: () => 'Doc/*' }]])('S6: rejects a non-string %j', (p) => {
    expect(checkPattern(p)).toEqual(expect.any(String));
  });

  it('S6: never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        const r = checkPattern(v);
        return r === null || typeof r === 'string';
      }),
    );
  });
});

describe('compileMatcher', () => {
  it('S6: an empty pattern list matches nothing', () => {
    const m = compileMatcher([]);
    expect(m('Doc/readme')).toBe(false);
    expect(m('a/b')).toBe(false);
  });

  it('S6: several patterns match when any one does', () => {
    const m = compileMatcher(['Doc/*', 'Img/**']);
    expect(m('Doc/readme')).toBe(true);
    expect(m('Img/a/b.png')).toBe(true);
    expect(m('Doc/a/b')).toBe(false);
    expect(m('Txt/a')).toBe(false);
  });

  it('S6: matching is case-sensitive', () => {
    const m = compileMatcher(['Doc/readme*']);
    expect(m('Doc/readme.md')).toBe(true);
    expect(m('doc/readme.md')).toBe(false);
    expect(m('Doc/README.md')).toBe(false);
  });

  it('S6: * and ? match a leading dot (dot: true)', () => {
    expect(compileMatcher(['Doc/*'])('Doc/.env')).toBe(true);
    expect(compileMatcher(['Doc/?env'])('Doc/.env')).toBe(true);
    expect(compileMatcher(['**'])('.git/config')).toBe(true);
  });

  it.each([
    ['Doc/x/**', 'Doc/x', true],
    ['Doc/x/**', 'Doc/xy', false],
    ['**/a', 'Doc/a', true],
    ['**/Doc/a', 'Doc/a', true],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'a/xb', false],
    ['Doc/*', 'Doc/a/b', false],
    ['Doc/*b', 'Doc/b', true],
    ['Doc/?', 'Doc/ab', false],
    ['*', 'Doc/a', false],
    ['Doc', 'Doc/a', false],
    ['*/*', 'Doc/a.b', true],
    // micromatch quirk: a trailing /** after a segment ending in * needs one more segment.
    ['a/*/**', 'a/b', false],
    ['a/*/**', 'a/b/c', true],
    ['x/a*/**', 'x/ab', false],
    ['x/a*/**/**', 'x/ab', false],
    ['x/a?/**', 'x/ab', true],
    // ? counts UTF-16 code units, as micromatch's regexes do (no `u` flag).
    ['Doc/?', 'Doc/\u{1F600}', false],
    ['Doc/??', 'Doc/\u{1F600}', true],
    // picomatch compiles some patterns through fast paths that place that lookahead elsewhere.
    ['**/*.*', 'a/b.', false],
    ['x/*.*', 'x/b.', true],
    ['**/*.*.md', 'a/b..md', true],
  ])('S6: %j against %j is %s, as in micromatch', (p, n, expected) => {
    expect(isValidThingName(n)).toBe(true);
    expect(reference(n, p)).toBe(expected);
    expect(compileMatcher([p])(n)).toBe(expected);
  });

  it.each([
    [''],
    ['Doc'],
    ['Doc/'],
    ['/Doc/a'],
    ['Doc//a'],
    ['Doc/../a'],
    ['Doc/./a'],
    ['Doc/a\\b'],
    ['Doc/a\nb'],
    ['Doc/' + 'a'.repeat(1021)],
  ])('S7: a name that is not a valid thing name (%j) matches nothing, even **', (n) => {
    expect(compileMatcher(['**', '*/**', 'Doc/*'])(n)).toBe(false);
  });

  // micromatch's globs are built on regex `.`, which stops at these line terminators
  // (its `Doc/x*` matches `Doc/x\u2028` but `Doc/*` does not match `Doc/\u2028`); S7 rejects them.
  it.each([
    ['Doc/**', `Doc/${LS}`],
    ['**', `a/${LS}`],
    ['Doc/?', `Doc/${LS}`],
    ['Doc/x*', `Doc/x${LS}`],
    ['x/**/?/**/b', `x/c/${LS}/b`],
    ['**/*.*', `a/${LS}.c`],
    ['*/*', `${LS}/a`],
    ['*/*', 'a/\u2029'],
  ])('S7: U+2028/U+2029 line separators make a thing name invalid, so %j does not match %j', (p, n) => {
    expect(isValidThingName(n)).toBe(false);
    expect(compileMatcher([p])(n)).toBe(false);
  });

  it('S7: any string that is not a valid thing name matches nothing', () => {
    const m = compileMatcher(['**', '*/**', '**/*', '*/*']);
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '/', '.', '\\', '\n', ' ', '\u0085', '*'), maxLength: 12 }), (n) => {
        return isValidThingName(n) || !m(n);
      }),
      { numRuns: 5_000 },
    );
  });

  it('A1: a non-string name is a non-match, never a TypeError', () => {
    const m = compileMatcher(['**']);
    for (const v of [undefined, null, 1, {}, ['Doc/a'], Symbol('x')]) expect(m(v as unknown as string)).toBe(false);
  });

  it('S6: a pattern outside the subset fails when the matcher is built', () => {
    const thrown = caught(() => compileMatcher(['Doc/*', 'Doc/{a,b}', 'ok/x', 'a**']));
    expect(thrown).toBeInstanceOf(ValidationError);
    const err = thrown as ValidationError;
    expect(err.code).toBe('validation');
    expect(err.issues.map((i) => i.pathText)).toEqual(['[1]', '[3]']);
  });

  it('S6: a non-array pattern list fails when the matcher is built', () => {
    expect(() => compileMatcher('Doc/*' as unknown as string[])).toThrow(ValidationError);
    expect(() => compileMatcher([42] as unknown as string[])).toThrow(ValidationError);
  });
});

/** Accepted patterns from a small alphabet, so that patterns and names collide often. */
const flatPattern = fc
  .array(fc.constantFrom('*', '?', '**', '.', '-', 'a', 'b', '/'), { minLength: 1, maxLength: 10 })
  .map((t) => t.join(''))
  .filter((p) => checkPattern(p) === null);

/** Accepted patterns built segment by segment, with `**` in every position. */
const word = fc
  .array(fc.constantFrom('*', '?', '.', '-', 'a', 'b', '.*'), { minLength: 1, maxLength: 4 })
  .map((t) => t.join('').replace(/\*+/g, '*'))
  .filter((w) => w !== '.' && w !== '..');
const segmentPattern = fc
  .array(fc.oneof({ weight: 1, arbitrary: fc.constant('**') }, { weight: 3, arbitrary: word }), { minLength: 1, maxLength: 6 })
  .map((s) => s.join('/'));

/** Patterns that picomatch compiles through its fast paths (`*\/*`, `**\/*.*`, ... plus `.ext` suffixes). */
const fastPathPattern = fc
  .tuple(
    fc.constantFrom('', 'a/', '**/', '*/'),
    fc.constantFrom('*/*', '**/*', '**/*.*', '**/.*', '**', 'a/*.*'),
    fc.array(fc.constantFrom('.a', '.md', '.a_b', '.1', '.a-b'), { maxLength: 2 }),
  )
  .map(([pre, base, exts]) => pre + base + exts.join(''))
  .filter((p) => checkPattern(p) === null);

const nameSegment = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('a', 'b', 'ab', '.a', 'a.b', '-', '..a', 'b.', 'a.md', 'b..md', 'a.a_b') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(LS, `${LS}a`, `a${LS}`, `.${LS}`, `a.${LS}`, `${LS}.md`, '\u2029', '\u{1F600}', '*', '?', ' ', '{a}', 'é'),
  },
);
const thingName = fc
  .array(nameSegment, { minLength: 2, maxLength: 7 })
  .map((s) => s.join('/'))
  .filter(isValidThingName);

describe('compileMatcher equals micromatch.isMatch(name, pattern, { dot: true }) on S6 x S7', () => {
  it('S6: property over flat patterns from a small alphabet', () => {
    fc.assert(
      fc.property(flatPattern, thingName, (p, n) => compileMatcher([p])(n) === reference(n, p)),
      { numRuns: 20_000 },
    );
  });

  it('S6: property over segment-built patterns (** anywhere, line separators in names)', () => {
    fc.assert(
      fc.property(segmentPattern, thingName, (p, n) => {
        expect(checkPattern(p)).toBeNull();
        return compileMatcher([p])(n) === reference(n, p);
      }),
      { numRuns: 20_000 },
    );
  });

  it('S6: property over patterns micromatch compiles through its fast paths', () => {
    fc.assert(
      fc.property(fastPathPattern, thingName, (p, n) => compileMatcher([p])(n) === reference(n, p)),
      { numRuns: 10_000 },
    );
  });

  it('S6: property over lists: a list matches when any pattern matches', () => {
    fc.assert(
      fc.property(fc.array(segmentPattern, { maxLength: 4 }), thingName, (ps, n) => {
        return compileMatcher(ps)(n) === ps.some((p) => reference(n, p));
      }),
      { numRuns: 3_000 },
    );
  });

  it('S6: property over the shapes matched without the segment walk (Lit, Lit/**, Lit/H*T, **/H*T)', () => {
    const lit = fc.constantFrom('Doc', 'a', 'a/b', 'Doc/x', '.a', 'a.b');
    const part = fc.constantFrom('', '.', 'a', '.a', 'a.', 'ab', '.md', 'b.md', '-');
    const shaped = fc.oneof(
      lit,
      lit.map((l) => `${l}/**`),
      fc.tuple(fc.oneof(lit, fc.constant('**')), part, part).map(([d, h, t]) => `${d}/${h}*${t}`),
    );
    fc.assert(
      fc.property(shaped, thingName, (p, n) => {
        expect(checkPattern(p)).toBeNull();
        return compileMatcher([p])(n) === reference(n, p) && compileMatcher([p])(p) === (isValidThingName(p) && reference(p, p));
      }),
      { numRuns: 20_000 },
    );
  });

  it('S6: a pattern matches itself as a name when that name is valid', () => {
    fc.assert(
      fc.property(segmentPattern, (p) => {
        fc.pre(isValidThingName(p));
        return compileMatcher([p])(p) === reference(p, p);
      }),
      { numRuns: 2_000 },
    );
  });
});

// Each of these makes a backtracking regex matcher (micromatch, picomatch, minimatch)
// run for seconds to years; the linear matcher just answers. A regression that only made
// them slow (not hang) is caught by `expectLinear`: the hostile case's cost is measured as a
// ratio to a tame pattern on the same name, in the same run, so machine speed and load cancel
// out; a 100x slowdown fails. No absolute time is asserted.
describe('hostile patterns and names (no catastrophic backtracking)', () => {
  const longA = 'Doc/' + 'a'.repeat(1020);

  /** Median over rounds of (hostile time / baseline time), interleaved so both see the same load. */
  function costRatio(hostile: () => unknown, baseline: () => unknown): number {
    const time = (fn: () => unknown, n: number): number => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      return performance.now() - t0;
    };
    let n = 1;
    while (time(baseline, n) < 2 && n < 1 << 20) n *= 2; // a baseline round of at least ~2 ms
    time(hostile, n); // warm up
    const ratios: number[] = [];
    for (let r = 0; r < 7; r++) {
      const b = time(baseline, n);
      const h = time(hostile, n);
      ratios.push(h / Math.max(b, 1e-3));
    }
    return ratios.sort((x, y) => x - y)[3] as number;
  }

  /** The hostile patterns cost at most 100x what one tame `*` costs on the same name. */
  function expectLinear(hostile: readonly string[], tame: readonly string[], name: string): void {
    const h = compileMatcher(hostile);
    const t = compileMatcher(tame);
    expect(
      costRatio(
        () => h(name),
        () => t(name),
      ),
    ).toBeLessThan(100);
  }

  it('S6 ReDoS: the hostile cases below cost under 100x a tame pattern on the same name', () => {
    const deep = Array.from({ length: 512 }, () => 'a').join('/');
    expectLinear(['**/*a*a*a*a*a*a*a*b'], ['**/*b'], longA);
    expectLinear(['**/*a*a*a*a*a*a*a*b*'], ['**/*b*'], longA);
    expectLinear(['Doc/*a*a*a*a*a*b', 'Doc/*a*a*a*a*a*b*'], ['Doc/*b'], longA);
    expectLinear(['**/**/**/**/x'], ['**/x'], deep);
    expectLinear([Array.from({ length: 50 }, () => '**/a').join('/') + '/**/b'], ['**/b'], deep);
  });

  it('S6 ReDoS: **/*a*a*a*a*a*a*a*b against a 1024-char name of a', () => {
    expect(longA.length).toBe(1024);
    const m = compileMatcher(['**/*a*a*a*a*a*a*a*b']);
    expect(m(longA)).toBe(false);
    expect(m('Doc/' + 'a'.repeat(1019) + 'b')).toBe(true);
    expect(m('Doc/' + 'a'.repeat(40))).toBe(false);
    // A trailing * leaves no literal suffix to reject on: the whole walk runs.
    const open = compileMatcher(['**/*a*a*a*a*a*a*a*b*']);
    expect(open(longA)).toBe(false);
    expect(open('Doc/' + 'a'.repeat(1018) + 'ba')).toBe(true);
  });

  it('S6 ReDoS: *a*a*a*a*a*b on one long segment', () => {
    const m = compileMatcher(['Doc/*a*a*a*a*a*b', 'Doc/*a*a*a*a*a*b*']);
    expect(m(longA)).toBe(false);
    expect(m('Doc/' + 'a'.repeat(5) + 'b')).toBe(true);
    expect(m('Doc/' + 'a'.repeat(4) + 'b')).toBe(false);
  });

  it('S6 ReDoS: **/**/**/**/x against deep names', () => {
    const deep = Array.from({ length: 512 }, () => 'a').join('/');
    expect(deep.length).toBe(1023);
    const m = compileMatcher(['**/**/**/**/x']);
    expect(m(deep)).toBe(false);
    expect(m(deep.slice(0, -1) + 'x')).toBe(true);
  });

  it('S6 ReDoS: alternating **/a/**/a/... against 512 segments of a', () => {
    const p = Array.from({ length: 50 }, () => '**/a').join('/') + '/**/b';
    expect(checkPattern(p)).toBeNull();
    const deep = Array.from({ length: 512 }, () => 'a').join('/');
    const m = compileMatcher([p]);
    expect(m(deep)).toBe(false);
    expect(m(deep.slice(0, -1) + 'b')).toBe(true);
  });

  it('S6 ReDoS: 64 patterns of 256 chars against a 1024-char name', () => {
    const tails = 'bcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_~,:';
    const patterns = Array.from({ length: 64 }, (_, i) =>
      i % 2 === 0 ? 'Doc/*' + 'a'.repeat(249) + tails[i] + '*' : '**/' + '*a'.repeat(125) + '*' + tails[i] + '*',
    );
    expect(new Set(patterns).size).toBe(64);
    for (const p of patterns) {
      expect(p.length).toBe(256);
      expect(checkPattern(p)).toBeNull();
    }
    const m = compileMatcher(patterns);
    expect(m(longA)).toBe(false);
    expect(m('Doc/' + 'a'.repeat(1019) + tails[63])).toBe(true);
    expect(m('Doc/' + 'a'.repeat(1019) + tails[62])).toBe(true);
    expect(m('Doc/' + 'a'.repeat(1019) + 'a')).toBe(false);
  });

  it('S6 ReDoS: ** runs over a name full of line separators', () => {
    const name = 'Doc/' + Array.from({ length: 300 }, () => `a${LS}`).join('/');
    const m = compileMatcher(['Doc/**/?/**/x', '**/*']);
    expect(m(name)).toBe(false);
  });
});
