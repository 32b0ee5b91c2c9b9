/** Fuzz: the scope parsers (S1-S8). Typed errors only, no hang, no prototype pollution. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeScopes, parseScopeFlags, parseScopesJson } from '../../src/index';
import { expectNoPollution, hostileString, PARAMS, TIMEOUT, typedOrValue } from './harness';

const entryLike = fc.record(
  {
    resource: fc.oneof(hostileString, fc.anything()),
    permissions: fc.oneof(fc.array(hostileString, { maxLength: 6 }), fc.anything()),
    allowedMatches: fc.oneof(fc.array(hostileString, { maxLength: 6 }), fc.anything()),
    __proto__: fc.anything(),
  },
  { requiredKeys: [] },
);

describe('fuzz: scopes', () => {
  it(
    'parseScopeFlags: arbitrary flag values give entries or a ValidationError',
    () => {
      fc.assert(
        fc.property(fc.array(hostileString, { maxLength: 8 }), (values) => {
          const r = typedOrValue(() => parseScopeFlags(values));
          if (!Array.isArray(r)) expect(r.code).toBe('validation');
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );

  it(
    'parseScopesJson: arbitrary text and JSON give entries or a ValidationError',
    () => {
      const text = fc.oneof(
        hostileString,
        fc.json({ maxDepth: 4 }),
        fc.array(entryLike, { maxLength: 4 }).map((v) => JSON.stringify(v)),
        fc.constantFrom(
          '[{"resource":"acme","permissions":["repo:read"],"__proto__":{"polluted":1}}]',
          '{"constructor":{"prototype":{"polluted":1}}}',
          '[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]',
        ),
      );
      fc.assert(
        fc.property(text, (t) => {
          const r = typedOrValue(() => parseScopesJson(t));
          if (!Array.isArray(r)) expect(r.code).toBe('validation');
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );

  it(
    'normalizeScopes: arbitrary values give frozen scopes or a ValidationError',
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.array(entryLike, { maxLength: 5 }), fc.anything()), (entries) => {
          const r = typedOrValue(() => normalizeScopes(entries as never));
          if (r instanceof Error) expect(r.code).toBe('validation');
          else expect(Object.isFrozen(r.scopes)).toBe(true);
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );
});
