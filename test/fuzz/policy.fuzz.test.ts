/** Fuzz: authorize (A1) never throws, and never allows what is not well formed. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorize, createGrant, normalizeScopes, PERMISSIONS } from '../../src/index';
import { parseResource } from '../../src/entries/policy';
import { expectNoPollution, hostileString, PARAMS, TIMEOUT } from './harness';

const grant = createGrant({
  roles: { orgs: { acme: 'owner', gated: 'owner' }, repos: { 'other/web': 'editor' } },
  orgGates: {
    gated: { blocked: "the organization 'gated' blocks this token" },
    Other: { scopedOnly: "'other' admits only tokens naming it" },
  },
  layers: [
    normalizeScopes([
      { resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] },
      { resource: 'other', permissions: ['repo:read'] },
    ]).scopes,
  ],
});

describe('fuzz: policy', () => {
  it(
    'authorize: arbitrary subject and arguments never throw; a non-subject never allows',
    () => {
      fc.assert(
        fc.property(fc.anything(), fc.anything(), fc.anything(), fc.anything(), (subject, resource, permission, thing) => {
          const d = authorize(subject as never, resource as never, permission as never, thing as never);
          expect(d.allowed).toBe(false);
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );

  it(
    'authorize: with a real grant, an allow only ever comes for a well-formed resource and permission',
    () => {
      const permission = fc.oneof(fc.constantFrom(...PERMISSIONS), hostileString, fc.anything());
      const resource = fc.oneof(
        fc.constantFrom('acme', 'acme/web', 'ACME/Web', 'other', 'other/web', 'x/y', 'gated', 'Gated/web'),
        hostileString,
        fc.anything(),
      );
      const thing = fc.oneof(fc.constant(undefined), fc.constantFrom('Doc/a', 'Doc/a/b', 'Src/x'), hostileString, fc.anything());
      fc.assert(
        fc.property(resource, permission, thing, (r, p, t) => {
          const d = authorize(grant, r as never, p as never, t as never);
          if (d.allowed) {
            expect(typeof r === 'string' && parseResource(r) !== null).toBe(true);
            expect((PERMISSIONS as readonly unknown[]).includes(p)).toBe(true);
            expect((r as string).toLowerCase().startsWith('gated')).toBe(false);
          }
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );

  it(
    'createGrant: arbitrary orgGates either compile or throw ValidationError, never anything else',
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.anything(), fc.dictionary(hostileString, fc.anything())), (orgGates) => {
          try {
            createGrant({ roles: { orgs: { acme: 'owner' } }, orgGates: orgGates as never });
          } catch (err) {
            expect((err as Error).name).toBe('ValidationError');
          }
          expectNoPollution();
        }),
        PARAMS,
      );
    },
    TIMEOUT,
  );
});
