import { describe, it, expect } from 'vitest';
import { ForbiddenError } from '../../src/errors';
import { checkNarrowing, roleWarnings } from '../../src/service/manage/narrowing';
import type { Scope } from '../../src/core/scopes';

const layer = (...entries: Scope[]): readonly Scope[] => entries;

describe('checkNarrowing (M4)', () => {
  it('M4: compares against the tier that decides for the resource in each ancestor layer (A4)', () => {
    const parent = layer(
      { resource: 'acme/w', permissions: ['repo:read'] },
      { resource: 'acme', permissions: ['repo:read', 'repo:write'] },
    );
    // acme/w is decided by its repo tier, which lacks write: the child entry could never allow anything.
    expect(() => checkNarrowing([{ resource: 'acme/w', permissions: ['repo:write'] }], [parent])).toThrow(ForbiddenError);
    // acme/x falls to the org tier, which has write.
    expect(() => checkNarrowing([{ resource: 'acme/x', permissions: ['repo:write'] }], [parent])).not.toThrow();
    expect(() => checkNarrowing([{ resource: 'acme', permissions: ['repo:write'] }], [parent])).not.toThrow();
  });

  it('M4: a broader child tier than the parent holds is refused', () => {
    const parent = layer({ resource: 'acme', permissions: ['repo:read', 'org:read'] });
    expect(() => checkNarrowing([{ permissions: ['repo:read'] }], [parent])).toThrow(ForbiddenError);
    expect(() => checkNarrowing([{ resource: 'beta', permissions: ['org:read'] }], [parent])).toThrow(ForbiddenError);
    expect(() => checkNarrowing([{ resource: 'acme', permissions: ['org:read'] }], [parent])).not.toThrow();
  });

  it('M4: every scoped ancestor must hold the entry; no layers allow anything', () => {
    const wide = layer({ permissions: ['repo:read', 'repo:write'] });
    const narrow = layer({ resource: 'acme', permissions: ['repo:read'] });
    expect(() => checkNarrowing([{ resource: 'acme/w', permissions: ['repo:write'] }], [wide, narrow])).toThrow(ForbiddenError);
    expect(() => checkNarrowing([{ resource: 'acme/w', permissions: ['repo:read'] }], [wide, narrow])).not.toThrow();
    expect(() => checkNarrowing([{ permissions: ['org:admin'] }], [])).not.toThrow();
  });

  it('M4: allowedMatches are not compared (the layering enforces them)', () => {
    const parent = layer({ resource: 'acme/w', permissions: ['repo:read'], allowedMatches: ['Doc/*'] });
    expect(() => checkNarrowing([{ resource: 'acme/w', permissions: ['repo:read'] }], [parent])).not.toThrow();
  });
});

describe('roleWarnings (M5)', () => {
  it('M5: warns per entry above the role, per tier', () => {
    const roles = { orgs: { Acme: 'editor' as const }, repos: { 'beta/y': 'viewer' as const } };
    const scopes: Scope[] = [
      { resource: 'acme/w', permissions: ['repo:read', 'repo:write'] },
      { resource: 'acme', permissions: ['repo:admin', 'org:read'] },
      { resource: 'beta', permissions: ['repo:read'] },
      { resource: 'beta', permissions: ['org:read'] },
      { permissions: ['repo:write', 'org:admin'] },
    ];
    const w = roleWarnings(scopes, roles);
    expect(w.map((x) => x.slice(0, x.indexOf(':')))).toEqual(['scopes[1]', 'scopes[3]', 'scopes[4]']);
    expect(w[0]).toContain('acme=repo:admin');
    expect(w[2]).toContain('org:admin');
    expect(w[2]).not.toContain('repo:write');
  });

  it('M5: no roles at all warns on every entry', () => {
    expect(roleWarnings([{ resource: 'acme/w', permissions: ['repo:read'] }], {})).toHaveLength(1);
  });
});
