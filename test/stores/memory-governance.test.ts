import { describe, expect, it } from 'vitest';
import { MemoryTokenStore, type TokenRecord } from '../../src/stores';

const now = new Date('2026-01-01T00:00:00Z');
const rec = (id: string, extra: Partial<TokenRecord> = {}): TokenRecord => ({
  id,
  kind: 'pat',
  ownerId: 'alice',
  name: id,
  description: null,
  scopes: null,
  parentId: null,
  createdAt: now,
  expiresAt: new Date('2026-02-01T00:00:00Z'),
  revokedAt: null,
  committerIdentity: null,
  ...extra,
});
const entry = (status: 'pending' | 'approved' | 'denied' | 'revoked', org = 'acme') => ({
  org,
  status,
  justification: status === 'pending' ? 'ci' : null,
  requestedAt: status === 'pending' ? now : null,
  reason: null,
  decidedBy: status === 'pending' ? null : 'bob',
  decidedAt: status === 'pending' ? null : now,
});
const policy = {
  org: 'acme',
  maxLifetimeDays: 90,
  requireApproval: true,
  allowGlobal: true,
  requireAllowedIps: false,
  exempt: [],
  updatedBy: 'bob',
  updatedAt: now,
};

describe('MemoryTokenStore governance', () => {
  it('sets, reads and replaces policies; the version moves', async () => {
    const s = new MemoryTokenStore();
    const v0 = s.readPolicies().version;
    expect(await s.setPolicy(policy)).toBeNull();
    const set = s.readPolicies();
    expect(set.version).not.toBe(v0);
    expect(set.policies).toEqual([policy]);
    expect(Object.isFrozen(set)).toBe(true);
    expect((await s.setPolicy({ ...policy, maxLifetimeDays: 30 }))?.maxLifetimeDays).toBe(90);
    expect(s.readPolicies().policies[0]?.maxLifetimeDays).toBe(30);
  });

  it('refuses a policy with an uppercase org, 0 days or too many exempt users', async () => {
    const s = new MemoryTokenStore();
    await expect(s.setPolicy({ ...policy, org: 'ACME' })).rejects.toThrow();
    await expect(s.setPolicy({ ...policy, maxLifetimeDays: 0 })).rejects.toThrow();
    await expect(s.setPolicy({ ...policy, exempt: Array.from({ length: 101 }, (_, i) => `u${i}`) })).rejects.toThrow();
  });

  it('keeps orgAccess on the record and applies the from rule, keeping the justification', async () => {
    const s = new MemoryTokenStore();
    await s.insert(rec('t1', { orgAccess: [entry('pending')] }), now);
    await s.insert(rec('t2'), now);
    expect((await s.readChain('t1'))?.[0]?.orgAccess?.[0]?.status).toBe('pending');
    expect((await s.readChain('t2'))?.[0]?.orgAccess).toBeUndefined();
    const changed = await s.updateOrgAccess([
      { id: 't1', from: ['pending', 'none'], entry: entry('approved') },
      { id: 't2', from: ['pending'], entry: entry('approved') },
      { id: 'nope', from: ['none'], entry: entry('approved') },
    ]);
    expect(changed).toEqual(['t1']);
    const e = (await s.readChain('t1'))?.[0]?.orgAccess?.[0];
    expect(e?.status).toBe('approved');
    expect(e?.justification).toBe('ci');
    await s.revoke(['t1'], now);
    await s.touch(['t1'], now);
    expect((await s.readChain('t1'))?.[0]?.orgAccess?.length).toBe(1);
  });

  it('an update batch with one bad change changes nothing (atomic)', async () => {
    const s = new MemoryTokenStore();
    await s.insert(rec('t1'), now);
    await expect(
      s.updateOrgAccess([
        { id: 't1', from: ['none'], entry: entry('approved') },
        { id: 't1', from: ['none'], entry: { ...entry('approved'), status: 'bogus' as 'approved' } },
      ]),
    ).rejects.toThrow();
    expect((await s.readChain('t1'))?.[0]?.orgAccess).toBeUndefined();
  });

  it('listForOrg selects full-access, naming and entry-holding PATs', async () => {
    const s = new MemoryTokenStore();
    await s.insert(rec('full'), now);
    await s.insert(rec('named', { scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] }), now);
    await s.insert(rec('other', { scopes: [{ resource: 'globex', permissions: ['repo:read'] }] }), now);
    expect((await s.listForOrg('acme')).map((r) => r.id)).toEqual(['full', 'named']);
  });

  it('hostile orgAccess records are refused: too many entries, duplicate org, bad status, __proto__, huge text', async () => {
    const s = new MemoryTokenStore();
    const many = Array.from({ length: 1001 }, (_, i) => entry('approved', `o${i}`));
    await expect(s.insert(rec('a', { orgAccess: many }), now)).rejects.toThrow();
    await expect(s.insert(rec('b', { orgAccess: [entry('approved'), entry('denied')] }), now)).rejects.toThrow();
    await expect(s.insert(rec('c', { orgAccess: [{ ...entry('approved'), status: 'ok' as 'approved' }] }), now)).rejects.toThrow();
    const proto = JSON.parse(
      `{"__proto__":{"x":1},"org":"acme","status":"approved","justification":null,"requestedAt":null,"reason":null,"decidedBy":null,"decidedAt":null}`,
    );
    await expect(s.insert(rec('d', { orgAccess: [proto] }), now)).rejects.toThrow();
    await expect(s.insert(rec('e', { orgAccess: [{ ...entry('approved'), reason: 'x'.repeat(1025) }] }), now)).rejects.toThrow();
    expect(s.size).toBe(0);
  });
});
