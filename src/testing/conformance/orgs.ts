/**
 * Conformance cases for org governance (G1-G4; optional, all four methods or
 * none): policies set, read and replaced with a moving version; `updateOrgAccess`
 * under its `from` rule, atomically; org access kept through revoke, touch and
 * recordUse and handed back by the chain read; `listForOrg`'s selection.
 *
 * Each case uses orgs of its own, so a store whose policies and records other
 * cases share (PostgreSQL) answers each case as if it were alone.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { OrgAccessEntry, OrgPolicyRecord, TokenStore } from '../../stores';
import { at, fixtures, HOUR, type CaseRegistrar } from './fixtures';

const METHODS = ['readPolicies', 'setPolicy', 'updateOrgAccess', 'listForOrg'] as const;
type Governed = TokenStore & Required<Pick<TokenStore, (typeof METHODS)[number]>>;

/** The store when it offers all four methods, `null` when none; a store offering some fails here. */
function governed(s: TokenStore): Governed | null {
  const offered = METHODS.filter((m) => typeof s[m] === 'function');
  if (offered.length === 0) return null;
  expect(offered, 'a store offers all four governance methods or none').toEqual([...METHODS]);
  return s as Governed;
}

const freshOrg = (): string => `o${randomUUID().replaceAll('-', '')}`;

const policyFor = (org: string, over: Partial<OrgPolicyRecord> = {}): OrgPolicyRecord => ({
  org,
  maxLifetimeDays: 90,
  requireApproval: true,
  allowGlobal: true,
  requireAllowedIps: false,
  exempt: ['deploy-bot'],
  updatedBy: 'owner-1',
  updatedAt: at(0),
  ...over,
});

const entryFor = (org: string, over: Partial<OrgAccessEntry> = {}): OrgAccessEntry => ({
  org,
  status: 'pending',
  justification: 'CI deploys',
  requestedAt: at(0),
  reason: null,
  decidedBy: null,
  decidedAt: null,
  ...over,
});

const decided = (org: string, status: OrgAccessEntry['status'], over: Partial<OrgAccessEntry> = {}): OrgAccessEntry =>
  entryFor(org, { status, justification: null, requestedAt: null, reason: 'decided', decidedBy: 'owner-1', decidedAt: at(HOUR), ...over });

async function accessOf(s: TokenStore, id: string): Promise<readonly OrgAccessEntry[]> {
  return (await s.readChain(id))?.[0]?.orgAccess ?? [];
}

/**
 * @internal Register the governance cases through the suite's own `it`.
 *
 * @example
 * ```ts
 * orgCases((name, run) => cases.push({ name, run: (s, twin) => run(() => s, () => twin) }));
 * ```
 */
export function orgCases(it: CaseRegistrar): void {
  it('governance (optional): a store offers readPolicies, setPolicy, updateOrgAccess and listForOrg together or none of them', async (store) => {
    governed(store());
    await Promise.resolve();
  });

  it('governance: setPolicy stores, replaces (resolving to the previous one) and moves the version; readPolicies shows it', async (store) => {
    const g = governed(store());
    if (g === null) return;
    const org = freshOrg();
    const before = (await g.readPolicies()).version;
    expect(await g.setPolicy(policyFor(org))).toBeNull();
    const first = await g.readPolicies();
    expect(first.version).not.toBe(before);
    expect(first.policies.find((p) => p.org === org)).toEqual(policyFor(org));
    const next = policyFor(org, { maxLifetimeDays: null, requireApproval: false, allowGlobal: false, exempt: [], updatedAt: at(HOUR) });
    expect(await g.setPolicy(next)).toEqual(policyFor(org));
    const second = await g.readPolicies();
    expect(second.version).not.toBe(first.version);
    expect(second.policies.filter((p) => p.org === org)).toEqual([next]);
  });

  it('governance: updateOrgAccess applies only from the listed statuses, keeps the request, ignores unknown ids', async (store) => {
    const g = governed(store());
    if (g === null) return;
    const f = fixtures();
    const org = freshOrg();
    const other = freshOrg();
    const id = f.id('t');
    expect(await g.insert(f.record({ id, orgAccess: [entryFor(org)] }), at(0))).toBe('ok');
    expect(await g.updateOrgAccess([{ id, from: ['approved', 'none'], entry: decided(org, 'denied') }])).toEqual([]);
    expect(await accessOf(g, id)).toEqual([entryFor(org)]);
    const changed = await g.updateOrgAccess([
      { id, from: ['pending', 'none'], entry: decided(org, 'approved') },
      { id: f.id('unknown'), from: ['none'], entry: decided(org, 'approved') },
    ]);
    expect(changed).toEqual([id]);
    expect(await accessOf(g, id)).toEqual([decided(org, 'approved', { justification: 'CI deploys', requestedAt: at(0) })]);
    expect(await g.updateOrgAccess([{ id, from: ['none'], entry: decided(other, 'revoked') }])).toEqual([id]);
    const both = await accessOf(g, id);
    expect(both.map((e) => e.org).sort()).toEqual([org, other].sort());
    expect(both.find((e) => e.org === other)).toEqual(decided(other, 'revoked'));
  });

  it('governance: two decisions racing on one pending request: exactly one applies (on one store or two servers)', async (store, twin) => {
    const g = governed(store());
    if (g === null) return;
    const t = twin() ?? g;
    const f = fixtures();
    const org = freshOrg();
    const id = f.id('t');
    await g.insert(f.record({ id, orgAccess: [entryFor(org)] }), at(0));
    const [a, b] = await Promise.all([
      g.updateOrgAccess([{ id, from: ['pending'], entry: decided(org, 'approved') }]),
      (t as Governed).updateOrgAccess([{ id, from: ['pending'], entry: decided(org, 'denied') }]),
    ]);
    expect([...a, ...b]).toEqual([id]);
    const [got] = await accessOf(g, id);
    expect(got?.status).toBe(a.length > 0 ? 'approved' : 'denied');
  });

  it('governance: org access survives revoke, touch and recordUse, and the chain read hands each record its own', async (store) => {
    const g = governed(store());
    if (g === null) return;
    const f = fixtures();
    const org = freshOrg();
    const parent = f.id('parent');
    const child = f.id('child');
    await g.insert(f.record({ id: parent, orgAccess: [decided(org, 'approved')] }), at(0));
    await g.insert(f.record({ id: child, name: 'child', parentId: parent }), at(0));
    const chain = await g.readChain(child);
    expect(chain?.map((r) => r.orgAccess ?? [])).toEqual([[], [decided(org, 'approved')]]);
    if (g.readChainSync !== undefined) {
      const sync = g.readChainSync(child);
      if (sync !== undefined) expect(sync?.map((r) => r.orgAccess ?? [])).toEqual([[], [decided(org, 'approved')]]);
    }
    await g.touch?.([parent], at(HOUR));
    await g.recordUse?.([{ id: parent, address: '203.0.113.7', userAgent: 'conformance' }], at(2 * HOUR));
    expect(await accessOf(g, parent)).toEqual([decided(org, 'approved')]);
    expect(await g.revoke([parent], at(3 * HOUR))).toEqual(expect.arrayContaining([parent, child]));
    expect(await accessOf(g, parent)).toEqual([decided(org, 'approved')]);
    const listed = (await g.listByOwner(f.owner())).find((r) => r.id === parent);
    expect(listed?.orgAccess).toEqual([decided(org, 'approved')]);
  });

  it('governance: listForOrg lists the PATs naming the org, full access, global entries and entries for it, in creation order', async (store) => {
    const g = governed(store());
    if (g === null) return;
    const f = fixtures();
    const org = freshOrg();
    const ids = ['full', 'org', 'repo', 'global', 'entry', 'elsewhere', 'prefix', 'session', 'component'].map((n) => f.id(n));
    const scoped = (resource: string) => [{ resource, permissions: ['repo:read' as const] }];
    const records = [
      f.record({ id: ids[0] as string, name: 'full' }),
      f.record({ id: ids[1] as string, name: 'org', scopes: scoped(org) }),
      f.record({ id: ids[2] as string, name: 'repo', scopes: scoped(`${org}/web`) }),
      f.record({ id: ids[3] as string, name: 'global', scopes: [{ permissions: ['repo:read'] }] }),
      f.record({ id: ids[4] as string, name: 'entry', scopes: scoped(freshOrg()), orgAccess: [decided(org, 'revoked')], revokedAt: at(0) }),
      f.record({ id: ids[5] as string, name: 'elsewhere', scopes: scoped(freshOrg()) }),
      f.record({ id: ids[6] as string, name: 'prefix', scopes: scoped(`${org}x`) }),
      f.record({ id: ids[7] as string, kind: 'session', name: 'session' }),
      f.record({ id: ids[8] as string, kind: 'component', name: 'component' }),
    ];
    for (const r of records) expect(await g.insert(r, at(0))).toBe('ok');
    const mine = new Set(ids);
    const listed = (await g.listForOrg(org)).filter((r) => mine.has(r.id)).map((r) => r.name);
    expect(listed).toEqual(['full', 'org', 'repo', 'global', 'entry']);
  });
}
