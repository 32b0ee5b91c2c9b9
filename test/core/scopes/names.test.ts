import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { NAME_PATTERN, isValidThingName, parseResource } from '../../../src/core/scopes';

describe('parseResource', () => {
  it('S7: parses org and org/repo, lowercased', () => {
    expect(parseResource('Acme')).toEqual({ key: 'acme', org: 'acme' });
    expect(parseResource('Acme/Web.App_1-x')).toEqual({ key: 'acme/web.app_1-x', org: 'acme', repo: 'web.app_1-x' });
  });

  it('S7: refuses names outside ^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$', () => {
    for (const bad of [
      '',
      '/',
      'acme/',
      '/web',
      'a/b/c',
      '.acme',
      '-acme',
      'acme/_web',
      'ac me',
      'a'.repeat(101),
      `a/${'b'.repeat(101)}`,
      'ac\u200bme',
      'acme\n',
      'ä',
    ]) {
      expect(parseResource(bad)).toBeNull();
    }
    expect(parseResource('a'.repeat(100))).not.toBeNull();
  });

  it('S7 attack: non-strings and huge strings are null, never a throw', () => {
    for (const v of [null, undefined, 5, {}, [], 'a'.repeat(10 * 1024 * 1024)]) expect(parseResource(v)).toBeNull();
  });

  it('S7 attack: __proto__ is not a name; constructor and prototype are plain names, nothing is looked up', () => {
    expect(parseResource('__proto__')).toBeNull();
    expect(parseResource('constructor')).toEqual({ key: 'constructor', org: 'constructor' });
    expect(parseResource('constructor/prototype')?.key).toBe('constructor/prototype');
  });

  it('property: an accepted resource is lowercase and matches NAME_PATTERN part by part', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 210 }), (s) => {
        const ref = parseResource(s);
        if (ref === null) return;
        expect(ref.key).toBe(s.toLowerCase());
        for (const part of s.split('/')) expect(NAME_PATTERN.test(part)).toBe(true);
      }),
    );
  });
});

describe('isValidThingName', () => {
  it('S7: accepts <Type>/<name>, with further slashes in the name', () => {
    for (const ok of ['Doc/readme', 'Doc/a/b/c', 'Img/.hidden', 'T/x y', 'T/ünï']) expect(isValidThingName(ok)).toBe(true);
  });

  it('S7: refuses a missing name, empty, . and .. segments, control characters and backslashes', () => {
    for (const bad of [
      'Doc',
      'Doc/',
      '/readme',
      'Doc//a',
      'Doc/./a',
      'Doc/..',
      '../etc',
      'Doc/a\u0000',
      'Doc/a\nb',
      'Doc\\a/b',
      'Doc/\u0085',
      '',
    ]) {
      expect(isValidThingName(bad)).toBe(false);
    }
  });

  it('S7: refuses the U+2028/U+2029 line separators, as it refuses \\n', () => {
    for (const bad of ['Doc/a\u2028b', 'Doc/\u2029', '\u2028/a']) expect(isValidThingName(bad)).toBe(false);
    expect(isValidThingName('Doc/a\u2027b')).toBe(true);
  });

  it('S7: at most 1024 characters', () => {
    expect(isValidThingName(`T/${'a'.repeat(1022)}`)).toBe(true);
    expect(isValidThingName(`T/${'a'.repeat(1023)}`)).toBe(false);
  });

  it('S7 attack: non-strings are false, never a throw', () => {
    for (const v of [null, undefined, 1, {}, ['Doc/a']]) expect(isValidThingName(v)).toBe(false);
  });

  // S7 written out plainly, one rule per line: the model the one-RegExp check must equal.
  function s7(name: string): boolean {
    if (name.length < 3 || name.length > 1024 || !name.includes('/')) return false;
    return name.split('/').every((seg) => {
      if (seg === '' || seg === '.' || seg === '..') return false;
      for (let i = 0; i < seg.length; i++) {
        const c = seg.charCodeAt(i);
        const ascii = c >= 0x20 && c <= 0x7e && c !== 0x5c;
        const wide = c > 0x9f && c !== 0x2028 && c !== 0x2029;
        if (!ascii && !wide) return false;
      }
      return true;
    });
  }

  it('S7: equals the rules written out one by one, on hostile strings (property)', () => {
    const piece = fc.constantFrom(
      'Doc',
      'a',
      '.',
      '..',
      '',
      ' ',
      '\\',
      '\u2028',
      '\u2029',
      '\u2027',
      '\u009f',
      '\u00a0',
      '\u0000',
      '\n',
      '\u007f',
      'é',
      '\ud800',
      '~',
    );
    const built = fc
      .array(
        fc.array(piece, { maxLength: 3 }).map((p) => p.join('')),
        { minLength: 1, maxLength: 5 },
      )
      .map((s) => s.join('/'));
    fc.assert(
      fc.property(fc.oneof(built, fc.string({ maxLength: 16 }), fc.string({ unit: 'binary', maxLength: 16 })), (name) => {
        expect(isValidThingName(name)).toBe(s7(name));
      }),
      { numRuns: 3000 },
    );
  });
});
