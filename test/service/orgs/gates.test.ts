/**
 * The gates an org's policy puts on a PAT chain (src/service/orgs/gates.ts):
 * which org refuses, why, and the message the token's holder reads.
 */
import { describe, expect, it } from 'vitest';
import type { OrgAccessEntry, OrgPolicyRecord, TokenRecord } from '../../../src/stores';
import { gatesOf, policyIndex, sameGates } from '../../../src/service/orgs/gates';

const NOW = new Date('2030-01-01T00:00:00Z');
const DAY = 86_400_000;

function rec(id: string, over: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id,
    kind: 'pat',
    ownerId: 'bob',
    name: id,
    description: null,
    scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }],
    parentId: null,
    createdAt: NOW,
    expiresAt: new Date(NOW.getTime() + 30 * DAY),
    revokedAt: null,
    committerIdentity: null,
    ...over,
  };
}
function policy(over: Partial<OrgPolicyRecord> = {}): OrgPolicyRecord {
  return {
    org: 'acme',
    maxLifetimeDays: null,
    requireApproval: false,
    allowGlobal: true,
    requireAllowedIps: false,
    exempt: [],
    updatedBy: 'alice',
    updatedAt: NOW,
    ...over,
  };
}
function entry(status: OrgAccessEntry['status']): OrgAccessEntry {
  return { org: 'acme', status, justification: null, requestedAt: null, reason: null, decidedBy: 'alice', decidedAt: NOW };
}
const BOB = { orgs: { acme: 'editor' as const } };

describe('gatesOf', () => {
  it('the defaults gate nothing, and the index keeps only policies that restrict', () => {
    const index = policyIndex({ version: '1', policies: [policy()] }, null);
    expect(index.active).toEqual([]);
    expect(index.byOrg.get('acme')).toBeDefined();
    expect(policyIndex({ version: '1', policies: [] }, index)).toBe(index);
    expect(gatesOf([policy()], [rec('a')], BOB)).toBeNull();
  });

  it('a lifetime over the maximum blocks with the org, the limit and the fix', () => {
    const long = rec('a', { expiresAt: new Date(NOW.getTime() + 365 * DAY) });
    const gates = gatesOf([policy({ maxLifetimeDays: 90 })], [long], BOB);
    expect(gates).toEqual({
      acme: {
        blocked:
          "The organization 'acme' allows tokens that live at most 90 days; this one lives 365 days. Create a new token with --expires 90d or less.",
      },
    });
    expect(gatesOf([policy({ maxLifetimeDays: 90, exempt: ['bob'] })], [long], BOB)).toBeNull();
  });

  it('approval: the nearest entry speaks, a child inherits; an owner passes; denied or revoked anywhere blocks', () => {
    const p = [policy({ requireApproval: true })];
    const parent = rec('p', { orgAccess: [entry('approved')] });
    const child = rec('c', { parentId: 'p' });
    expect(gatesOf(p, [child, parent], BOB)).toBeNull();
    expect(gatesOf(p, [rec('x')], BOB)?.acme).toMatchObject({ blocked: expect.stringContaining('its id is x') as unknown });
    expect(gatesOf(p, [rec('x')], { orgs: { ACME: 'owner' } })).toBeNull();
    const approvedChild = rec('c', { parentId: 'p', orgAccess: [entry('approved')] });
    const revokedParent = rec('p', { orgAccess: [entry('revoked')] });
    expect(gatesOf([policy({ maxLifetimeDays: 365 })], [approvedChild, revokedParent], BOB)?.acme).toMatchObject({
      blocked: expect.stringContaining('revoked') as unknown,
    });
    // Without requireApproval a pending entry does not block.
    expect(
      gatesOf([policy({ maxLifetimeDays: 365 })], [rec('x', { orgAccess: [{ ...entry('pending'), decidedBy: null }] })], BOB),
    ).toBeNull();
  });

  it('an org that denied or revoked a token blocks it without any policy of its own', () => {
    const gates = gatesOf([], [rec('c', { parentId: 'p' }), rec('p', { orgAccess: [entry('revoked')] })], BOB);
    expect(gates?.acme).toMatchObject({ blocked: expect.stringContaining("The organization 'acme' revoked") as unknown });
  });

  it('requireAllowedIps: a list on any record of the chain is enough', () => {
    const p = [policy({ requireAllowedIps: true })];
    expect(gatesOf(p, [rec('a')], BOB)?.acme).toHaveProperty('blocked');
    expect(gatesOf(p, [rec('c', { parentId: 'p' }), rec('p', { allowedIps: ['10.0.0.0/8'] })], BOB)).toBeNull();
  });

  it('allowGlobal false is a scopedOnly gate, and sameGates compares by content', () => {
    const a = gatesOf([policy({ allowGlobal: false })], [rec('a')], BOB);
    const b = gatesOf([policy({ allowGlobal: false })], [rec('b')], BOB);
    expect(a?.acme).toHaveProperty('scopedOnly');
    expect(sameGates(a, b)).toBe(true);
    expect(sameGates(a, null)).toBe(false);
    expect(sameGates(a, gatesOf([policy({ requireAllowedIps: true })], [rec('a')], BOB))).toBe(false);
  });
});
