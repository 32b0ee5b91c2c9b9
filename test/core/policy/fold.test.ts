import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { fold, foldValidating } from '../../../src/core/policy/fold';
import { compileMatcherForValidNames, isValidThingName } from '../../../src/core/scopes';

const SHAPES = ['Doc/*', 'Doc/**', 'Img/*.png', 'Doc/readme', 'Img/icons/*', 'Src/lib/**', 'Doc/a*', '**/*.md', '**', 'Doc/*/x'];
const lists = fc.array(fc.subarray(SHAPES, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 });
const seg = fc.constantFrom('Doc', 'Img', 'Src', 'lib', 'readme', 'a', 'ab', 'x', 'logo.png', 'n.md', '.env', 'icons');
const name = fc.array(seg, { minLength: 2, maxLength: 5 }).map((s) => s.join('/'));

describe('fold (thing matchers of several layers)', () => {
  it('A5: the folded matcher passes exactly the names every layer passes (property)', () => {
    fc.assert(
      fc.property(lists, fc.array(name, { minLength: 1, maxLength: 20 }), (layers, names) => {
        const ms = layers.map((ps) => compileMatcherForValidNames(ps));
        const folded = fold(ms);
        for (const n of names) {
          if (!isValidThingName(n)) continue;
          expect(folded.every((m) => m(n))).toBe(ms.every((m) => m(n)));
        }
      }),
    );
  });

  it('folds simple shapes into one call, and leaves other matchers as they are', () => {
    const a = compileMatcherForValidNames(['Doc/**']);
    const b = compileMatcherForValidNames(['Doc/*', 'Img/*.png']);
    expect(fold([a, b])).toHaveLength(1);
    const special = compileMatcherForValidNames(['**/*.md']);
    expect(fold([a, special])).toEqual([a, special]);
    expect(fold([a])).toEqual([a]);
  });

  it('S6 hostile: a folded pair answers long names near the 1024-character limit', () => {
    const [m] = fold([compileMatcherForValidNames(['Doc/**']), compileMatcherForValidNames(['Doc/a*'])]);
    expect(m?.(`Doc/${'a'.repeat(1020)}`)).toBe(true);
    expect(m?.(`Doc/${'a'.repeat(1000)}/b`)).toBe(false);
    expect(m?.(`Doc/${'b'.repeat(1020)}`)).toBe(false);
  });
});

describe('foldValidating (the name check and every layer in one RegExp)', () => {
  // Names built to break S7 in every way it can break, next to good ones.
  const hostileSeg = fc.constantFrom(
    'Doc',
    'Img',
    'a',
    'x',
    'readme',
    'logo.png',
    '.env',
    '.',
    '..',
    '',
    'a\\b',
    'a b',
    'é',
    'a\u2028b',
    'a\u2029',
    'a\nb',
    'a\u0000',
    'a\u007f',
    'a\u0085',
    '\ud800',
    'ab*',
    '~,:=-',
  );
  const hostileName = fc.oneof(
    // Under a prefix the patterns name, so that the layers would pass the text.
    fc
      .tuple(fc.constantFrom('Doc', 'Img', 'Src/lib', 'Img/icons', 'Doc/readme'), fc.array(hostileSeg, { minLength: 1, maxLength: 3 }))
      .map(([head, rest]) => [head, ...rest].join('/')),
    fc.array(hostileSeg, { minLength: 1, maxLength: 5 }).map((s) => s.join('/')),
    fc.array(hostileSeg, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`),
    fc.array(hostileSeg, { minLength: 1, maxLength: 4 }).map((s) => `${s.join('/')}/`),
    fc.string({ maxLength: 12 }),
  );

  it('passes exactly the valid names that every layer passes, for hostile names too (property)', () => {
    fc.assert(
      fc.property(lists, fc.array(fc.oneof(name, hostileName), { minLength: 1, maxLength: 30 }), (layers, names) => {
        const ms = layers.map((ps) => compileMatcherForValidNames(ps));
        const whole = foldValidating(ms);
        // Only layers of single-RegExp shapes fold; the others keep the two-step path.
        const foldable = layers.every((ps) => ps.every((p) => !['**/*.md', '**', 'Doc/*/x'].includes(p)));
        expect(whole !== null).toBe(foldable);
        if (whole === null) return;
        for (const n of names) {
          expect(whole(n)).toBe(isValidThingName(n) && ms.every((m) => m(n)));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('path traversal and smuggled separators never pass, even where the patterns would match the text', () => {
    const whole = foldValidating([compileMatcherForValidNames(['Doc/**']), compileMatcherForValidNames(['Doc/*', 'Doc/*/x'.slice(0, 5)])]);
    for (const n of ['Doc/..', 'Doc/.', 'Doc//x', 'Doc/', 'Doc/a\\..', 'Doc/\u2028', 'Doc/a\u0000', `Doc/${'a'.repeat(1021)}`]) {
      expect(whole?.(n)).toBe(false);
    }
    expect(whole?.('Doc/readme')).toBe(true);
    expect(whole?.(`Doc/${'a'.repeat(1020)}`)).toBe(true);
  });

  it('a literal pattern without a slash matches no valid name', () => {
    expect(foldValidating([compileMatcherForValidNames(['readme'])])?.('readme')).toBe(false);
    expect(foldValidating([compileMatcherForValidNames(['Doc/**'])])?.('Doc')).toBe(false);
  });
});
