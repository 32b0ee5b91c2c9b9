import { describe, it, expect } from 'vitest';
import { authorize, createGrant, type OrgGate } from '../../../src/core/policy';
import { ALLOW, DENY_INVALID, DENY_ROLE, DENY_SCOPE, DENY_THING } from '../../../src/core/policy/decision';
import { ValidationError } from '../../../src/errors';
import { pathsOf } from '../../support/errors';

const BLOCKED = "the organization 'acme' has not approved this token yet";
const SCOPED = "the organization 'acme' admits only tokens that name it";
const gates = (g: Record<string, unknown>) => () => createGrant({ roles: { orgs: { acme: 'owner' } }, orgGates: g as never });

describe('createGrant: orgGates (G2)', () => {
  it('a blocked org refuses with reason policy and the message, after invalid and role', () => {
    const g = createGrant({ roles: { orgs: { acme: 'editor' } }, orgGates: { ACME: { blocked: BLOCKED } } });
    const d = authorize(g, 'acme/web', 'repo:read');
    expect(d).toEqual({ allowed: false, reason: 'policy', message: BLOCKED });
    expect(Object.isFrozen(d)).toBe(true);
    // One frozen object per gate: every policy answer of this grant is the same one.
    expect(authorize(g, 'Acme/Other', 'repo:write', 'Doc/a')).toBe(d);
    expect(authorize(g, 'acme', 'org:read')).toBe(d);
    expect(authorize(g, 'acme', 'org:admin')).toBe(DENY_ROLE);
    expect(authorize(g, 'acme/web', 'repo:read', 'bad')).toBe(DENY_INVALID);
    expect(authorize(g, 'acme/web', 'org:read')).toBe(DENY_INVALID);
    expect(authorize(g, 'globex/web', 'repo:read')).toBe(DENY_ROLE);
  });

  it('a gate on an org named nowhere else still holds for its repos', () => {
    const g = createGrant({ roles: { repos: { 'acme/web': 'viewer' } }, orgGates: { acme: { blocked: BLOCKED } } });
    expect(authorize(g, 'acme/web', 'repo:read')).toMatchObject({ reason: 'policy' });
    const h = createGrant({ roles: {}, orgGates: { acme: { blocked: BLOCKED } } });
    expect(authorize(h, 'acme/web', 'repo:read')).toBe(DENY_ROLE);
  });

  it('scopedOnly refuses full access and global-tier entries, admits entries naming the org', () => {
    const orgGates: Record<string, OrgGate> = { acme: { scopedOnly: SCOPED } };
    const roles = { orgs: { acme: 'owner' as const, globex: 'owner' as const } };
    const full = createGrant({ roles, orgGates });
    expect(authorize(full, 'acme/web', 'repo:read')).toMatchObject({ reason: 'policy', message: SCOPED });
    expect(authorize(full, 'globex/web', 'repo:read')).toBe(ALLOW);

    const global = createGrant({ roles, orgGates, layers: [[{ permissions: ['repo:read'] }]] });
    expect(authorize(global, 'acme/web', 'repo:read')).toMatchObject({ reason: 'policy' });
    expect(authorize(global, 'globex/web', 'repo:read')).toBe(ALLOW);

    const named = createGrant({
      roles,
      orgGates,
      layers: [[{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/**'] }, { permissions: ['repo:read'] }]],
    });
    expect(authorize(named, 'acme/web', 'repo:read', 'Doc/a')).toBe(ALLOW);
    expect(authorize(named, 'acme/web', 'repo:read', 'Img/a')).toBe(DENY_THING);
    expect(authorize(named, 'acme/web', 'repo:write')).toBe(DENY_SCOPE);
    expect(authorize(named, 'acme/api', 'repo:read')).toMatchObject({ reason: 'policy' });

    // A parent layer reaching acme through its global tier refuses too: every layer must name the org.
    const chain = createGrant({
      roles,
      orgGates,
      layers: [[{ resource: 'acme', permissions: ['repo:read'] }], [{ permissions: ['repo:read'] }]],
    });
    expect(authorize(chain, 'acme/web', 'repo:read')).toMatchObject({ reason: 'policy' });
    // A layer with no tier at all for acme is a scope denial, as without the gate.
    const none = createGrant({ roles, orgGates, layers: [[{ resource: 'globex', permissions: ['repo:read'] }]] });
    expect(authorize(none, 'acme/web', 'repo:read')).toBe(DENY_SCOPE);
  });
});

describe('createGrant: bad and hostile orgGates', () => {
  it('refuses bad keys, shapes and messages, listing each', () => {
    expect(pathsOf(gates({ 'acme/web': { blocked: 'x' } }))).toEqual(['orgGates["acme/web"]']);
    expect(pathsOf(gates({ acme: { blocked: '' } }))).toEqual(['orgGates.acme.blocked']);
    expect(pathsOf(gates({ acme: { blocked: 'x'.repeat(2049) } }))).toEqual(['orgGates.acme.blocked']);
    expect(pathsOf(gates({ acme: { blocked: 'x', scopedOnly: 'y' } }))).toEqual(['orgGates.acme']);
    expect(pathsOf(gates({ acme: { denied: 'x' } }))).toEqual(['orgGates.acme']);
    expect(pathsOf(gates({ acme: 'blocked' }))).toEqual(['orgGates.acme']);
    expect(pathsOf(gates({ acme: { blocked: 'x' }, ACME: { scopedOnly: 'x' } }))).toEqual(['orgGates.ACME']);
    expect(pathsOf(() => createGrant({ roles: {}, orgGates: new Map() as never }))).toEqual(['orgGates']);
  });

  it('attack: more than 10 000 gates is refused before any is compiled', () => {
    const many = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`o${i}`, { blocked: 'x' }]));
    expect(pathsOf(gates(many))).toEqual(['orgGates']);
  });

  it('attack: a __proto__ key from JSON is refused and pollutes nothing', () => {
    const g = JSON.parse('{"__proto__": {"blocked": "x"}}') as Record<string, unknown>;
    expect(pathsOf(gates(g))).toEqual(['orgGates.__proto__']);
    expect(({} as Record<string, unknown>)['blocked']).toBeUndefined();
  });

  it('attack: a getter or a Proxy in place of a gate ends as ValidationError, never allows', () => {
    let reads = 0;
    const getter = {
      get blocked() {
        reads++;
        return 'x';
      },
    };
    expect(gates({ acme: getter })).toThrow(ValidationError);
    expect(reads).toBe(0);
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    expect(gates({ acme: trap })).toThrow(ValidationError);
    expect(() => createGrant({ roles: {}, orgGates: trap as never })).toThrow(ValidationError);
  });
});
