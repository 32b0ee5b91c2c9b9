import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ValidationError } from '../../../src/errors';
import { parseScopeFlags, formatScopeFlags, isFlagExpressible, normalizeScopes, type Scope } from '../../../src/core/scopes';
import { validScopeEntries } from './arbitraries';
import { pathsOf } from '../../support/errors';

describe('formatScopeFlags', () => {
  it('S1: renders one --scope value per entry in the three forms', () => {
    const { scopes } = normalizeScopes([
      { resource: 'Acme/Web', permissions: ['repo:write', 'repo:read'] },
      { resource: 'acme', permissions: ['org:read'] },
      { permissions: ['repo:read'] },
    ]);
    expect(formatScopeFlags(scopes)).toEqual(['acme/web=repo:read,repo:write', 'acme=org:read', 'repo:read']);
  });

  it('S5: an entry with allowedMatches is rendered for display only', () => {
    const { scopes } = normalizeScopes([{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*', 'Img/**'] }]);
    expect(formatScopeFlags(scopes)).toEqual(['acme/web=repo:read [Doc/*,Img/**]']);
    expect(isFlagExpressible(scopes[0] as Scope)).toBe(false);
  });

  it('S5: allowedMatches [] renders as an empty bracket, still not a flag', () => {
    const { scopes } = normalizeScopes([{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: [] }]);
    expect(formatScopeFlags(scopes)).toEqual(['acme/web=repo:read []']);
    expect(isFlagExpressible(scopes[0] as Scope)).toBe(false);
  });

  it('isFlagExpressible: true for entries without allowedMatches', () => {
    expect(isFlagExpressible({ resource: 'acme', permissions: ['org:read'] })).toBe(true);
    expect(isFlagExpressible({ permissions: ['repo:read'] })).toBe(true);
    expect(isFlagExpressible(null as unknown as Scope)).toBe(false);
  });

  it('an empty list formats to no flags', () => {
    expect(formatScopeFlags([])).toEqual([]);
  });

  it('bad input is a ValidationError, never a TypeError', () => {
    expect(pathsOf(() => formatScopeFlags(null as unknown as Scope[]))).toEqual(['']);
    const bad = [
      null,
      { permissions: ['role:owner'] },
      { resource: 5, permissions: ['repo:read'] },
      { permissions: ['repo:read'], allowedMatches: [1] },
    ];
    expect(pathsOf(() => formatScopeFlags(bad as unknown as Scope[]))).toEqual([
      '[0]',
      '[1].permissions',
      '[2].resource',
      '[3].allowedMatches',
    ]);
    const hostile = new Proxy([], {
      get() {
        throw new Error('boom');
      },
    });
    expect(() => formatScopeFlags(hostile)).toThrow(ValidationError);
  });

  it('property: flag-expressible scopes round-trip through parseScopeFlags and normalizeScopes', () => {
    fc.assert(
      fc.property(validScopeEntries(), (entries) => {
        const flagOnly = entries.map(({ allowedMatches: _dropped, ...rest }) => rest);
        const scopes = normalizeScopes(flagOnly).scopes;
        expect(scopes.every((s) => isFlagExpressible(s))).toBe(true);
        const again = normalizeScopes(parseScopeFlags(formatScopeFlags(scopes)));
        expect(again.scopes).toEqual(scopes);
        expect(again.warnings).toEqual([]);
      }),
    );
  });
});
