import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../src/policy/fold';
import { compileMatcherForValidNames } from '../../src/scopes/glob';
import { isValidThingName } from '../../src/scopes/names';

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
