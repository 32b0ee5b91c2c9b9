import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ValidationError } from '../../../src/errors';
import { parseScopesJson, LIMITS } from '../../../src/core/scopes';
import { caught, issuesOf, pathsOf } from '../../support/errors';

describe('parseScopesJson', () => {
  it('S4: parses an array of entries with resource, permissions and allowedMatches', () => {
    const text = JSON.stringify([
      { resource: 'Acme/Web', permissions: ['role:editor'], allowedMatches: ['Doc/*'] },
      { permissions: ['repo:read'] },
    ]);
    expect(parseScopesJson(text)).toEqual([
      { resource: 'Acme/Web', permissions: ['role:editor'], allowedMatches: ['Doc/*'] },
      { permissions: ['repo:read'] },
    ]);
  });

  it('S4: output entries are fresh plain objects with only the known keys, in a fixed order', () => {
    const [e] = parseScopesJson('[{"allowedMatches":[],"permissions":["repo:read"],"resource":"a/b"}]');
    expect(Object.getPrototypeOf(e)).toBe(Object.prototype);
    expect(Object.keys(e ?? {})).toEqual(['resource', 'permissions', 'allowedMatches']);
    expect(e?.allowedMatches).toEqual([]);
  });

  it('S4: an empty array parses (normalizeScopes is where it is refused)', () => {
    expect(parseScopesJson('[]')).toEqual([]);
  });

  it('S4: unknown keys are a ValidationError at their path', () => {
    expect(
      pathsOf(() => parseScopesJson('[{"permissions":["repo:read"],"allowed_matches":["Doc/*"]},{"permissions":["repo:read"],"x y":1}]')),
    ).toEqual(['[0].allowed_matches', '[1]["x y"]']);
  });

  it('S4: wrong types are reported with paths like [0].permissions[1]', () => {
    const text = '[{"resource":null,"permissions":["repo:read",7]},{"permissions":"repo:read"},5,{"allowedMatches":[true]}]';
    expect(pathsOf(() => parseScopesJson(text)).sort()).toEqual(
      ['[0].resource', '[0].permissions[1]', '[1].permissions', '[2]', '[3].permissions', '[3].allowedMatches[0]'].sort(),
    );
  });

  it('S4: issues are plain { code, path, pathText, message } records, no zod objects leak', () => {
    const err = caught(() => parseScopesJson('[{"permissions":[1]}]'));
    expect(err).toBeInstanceOf(ValidationError);
    const e = err as ValidationError;
    expect(e.cause).toBeUndefined();
    for (const i of e.issues) expect(Object.keys(i).sort()).toEqual(['code', 'message', 'path', 'pathText']);
  });

  it('S4: not JSON, not an array, not text: ValidationError', () => {
    expect(pathsOf(() => parseScopesJson('[{'))).toEqual(['']);
    expect(pathsOf(() => parseScopesJson('{"permissions":["repo:read"]}'))).toEqual(['']);
    expect(pathsOf(() => parseScopesJson('null'))).toEqual(['']);
    expect(pathsOf(() => parseScopesJson(42 as unknown as string))).toEqual(['']);
  });

  it('S4 attack: __proto__ as an entry key is refused and nothing reaches a prototype', () => {
    const text = '[{"permissions":["repo:read"],"__proto__":{"resource":"evil","polluted":true}}]';
    expect(pathsOf(() => parseScopesJson(text))).toEqual(['[0].__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).resource).toBeUndefined();
  });

  it('S4 attack: __proto__, constructor and prototype are refused at any depth', () => {
    const text = '[{"permissions":[{"a":{"constructor":{"prototype":1}}}]},{"__proto__":[]}]';
    expect(pathsOf(() => parseScopesJson(text))).toEqual(
      expect.arrayContaining(['[0].permissions[0].a.constructor', '[0].permissions[0].a.constructor.prototype', '[1].__proto__']),
    );
  });

  it('S4 attack: an escaped spelling of __proto__ is refused too', () => {
    expect(pathsOf(() => parseScopesJson('[{"permissions":["repo:read"],"\\u005f_proto__":{}}]'))).toEqual(['[0].__proto__']);
  });

  it('S4 attack: a key repeated in one object is refused (no silent last-one-wins)', () => {
    const text = '[{"resource":"a/b","permissions":["repo:read"],"allowedMatches":["Doc/*"],"allowedMatches":[]}]';
    expect(pathsOf(() => parseScopesJson(text))).toEqual(['[0].allowedMatches']);
  });

  it('S4: text longer than LIMITS.maxScopesJsonLength is refused before parsing', () => {
    const entry = '{"permissions":["repo:read"]},';
    const big = `[${entry.repeat(Math.ceil(LIMITS.maxScopesJsonLength / entry.length))}{"permissions":["repo:read"]}]`;
    expect(big.length).toBeGreaterThan(LIMITS.maxScopesJsonLength);
    expect(pathsOf(() => parseScopesJson(big))).toEqual(['']);
  });

  it('attack: a 10 MB string is a ValidationError', () => {
    expect(pathsOf(() => parseScopesJson(`["${'x'.repeat(10 * 1024 * 1024)}"]`))).toEqual(['']);
  });

  it('attack: deeply nested arrays and objects are a ValidationError, never a stack overflow', () => {
    const depth = 100_000;
    expect(issuesOf(() => parseScopesJson('['.repeat(depth) + ']'.repeat(depth)))).toHaveLength(1);
    expect(issuesOf(() => parseScopesJson('{"a":'.repeat(40_000) + '1' + '}'.repeat(40_000)))).toHaveLength(1);
    expect(issuesOf(() => parseScopesJson('[{"permissions":[[[[[[[[["repo:read"]]]]]]]]]}]'))).toHaveLength(1);
  });

  it('S8: more entries than LIMITS.maxEntries are refused with one issue', () => {
    const text = JSON.stringify(Array.from({ length: LIMITS.maxEntries + 1 }, () => ({ permissions: [1] })));
    expect(issuesOf(() => parseScopesJson(text))).toHaveLength(1);
  });

  it('attack: thousands of bad items give a bounded list of issues', () => {
    const text = JSON.stringify([{ permissions: Array.from({ length: 5000 }, (_, i) => i) }]);
    const issues = issuesOf(() => parseScopesJson(text));
    expect(issues.length).toBeLessThanOrEqual(101);
    expect(issues.length).toBeGreaterThan(50);
  });

  it('property: arbitrary text is either parsed or a ValidationError, never another error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify([v])),
        ),
        (text) => {
          try {
            const out = parseScopesJson(text);
            for (const e of out) expect(Object.keys(e).every((k) => ['resource', 'permissions', 'allowedMatches'].includes(k))).toBe(true);
          } catch (err) {
            expect(err).toBeInstanceOf(ValidationError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: valid entries survive a JSON round trip unchanged', () => {
    const entry = fc.record(
      {
        resource: fc.constantFrom('acme', 'Acme/Web', 'x/y'),
        permissions: fc.array(fc.string(), { minLength: 1, maxLength: 5 }),
        allowedMatches: fc.array(fc.string(), { maxLength: 3 }),
      },
      { requiredKeys: ['permissions'] },
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 10 }), (entries) => {
        expect(parseScopesJson(JSON.stringify(entries))).toEqual(entries);
      }),
    );
  });
});
