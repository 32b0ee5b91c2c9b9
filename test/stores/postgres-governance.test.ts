/**
 * Org governance in PostgresTokenStore against PostgreSQL: org access travels
 * with the record on every read path, policies are cached while the chain reads
 * show the same governance version (still one statement per chain read), a
 * change through one pool holds on another pool's next read, a hand-edited
 * org_access fails closed, and a table of the previous release upgrades in place.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { UnavailableError, ValidationError } from '../../src/errors';
import { PostgresTokenStore } from '../../src/stores/postgres';
import type { OrgAccessEntry, OrgPolicyRecord } from '../../src/stores';
import { NOW } from '../support/clock';
import { describeWithDb, newPool, recordStatements, RUN, tableName } from '../support/postgres';
import { namedRecord as rec } from '../support/record';

const TABLE = tableName('svc_tokens_gov');
const OLD = tableName('svc_tokens_gov', 'old');
const APP = `svc_auth_gov_${RUN}`;
const withDb = describeWithDb('PostgresTokenStore governance', 'PostgreSQL governance tests', 'test/stores/postgres-governance.test.ts');

/** The token table of the previous release (68fecdd: sql.ts, usage.ts, purge.ts), kept as the upgrade fixture. */
const PREVIOUS_DDL = (t: string): string[] => [
  `CREATE TABLE ${t} (
    seq bigint GENERATED ALWAYS AS IDENTITY, id text NOT NULL PRIMARY KEY, kind text NOT NULL, owner_id text NOT NULL,
    name text NOT NULL, description text, scopes jsonb, parent_id text, created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL, revoked_at timestamptz, committer_identity text, last_used_at timestamptz)`,
  `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS allowed_ips text[]`,
  `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS used_from jsonb`,
  `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS expiry_warnings integer[]`,
];

const entry = (org: string, status: OrgAccessEntry['status'], over: Partial<OrgAccessEntry> = {}): OrgAccessEntry => ({
  org,
  status,
  justification: null,
  requestedAt: null,
  reason: null,
  decidedBy: null,
  decidedAt: null,
  ...over,
});
const policy = (org: string, over: Partial<OrgPolicyRecord> = {}): OrgPolicyRecord => ({
  org,
  maxLifetimeDays: 90,
  requireApproval: true,
  allowGlobal: true,
  requireAllowedIps: false,
  exempt: ['bot'],
  updatedBy: 'alice',
  updatedAt: new Date(NOW.getTime()),
  ...over,
});

withDb('PostgresTokenStore governance against PostgreSQL', () => {
  let a: pg.Pool;
  let b: pg.Pool;
  let storeA: PostgresTokenStore;
  let storeB: PostgresTokenStore;
  const sentB: string[] = [];

  beforeAll(async () => {
    a = newPool(APP);
    b = newPool(APP);
    recordStatements(b, sentB);
    storeA = new PostgresTokenStore({ pool: a, table: TABLE });
    storeB = new PostgresTokenStore({ pool: b, table: TABLE });
    await storeA.migrate();
  });

  afterAll(async () => {
    for (const t of [TABLE, OLD]) {
      await a.query(`DROP TABLE IF EXISTS ${t}, ${t}_org_policies, ${t}_governance`);
    }
    await Promise.all([a.end(), b.end()]);
  });

  it('org access is stored with the record and read back by readChain, listByOwner and listForOrg', async () => {
    const parent = rec({ ownerId: `o_${RUN}` });
    const child = {
      ...rec({ ownerId: `o_${RUN}`, parentId: parent.id }),
      orgAccess: [entry('acme', 'pending', { justification: 'CI', requestedAt: NOW })],
    };
    expect(await storeA.insert(parent, NOW)).toBe('ok');
    expect(await storeA.insert(child, NOW)).toBe('ok');
    const chain = await storeB.readChain(child.id);
    expect(chain?.[0]?.orgAccess).toEqual(child.orgAccess);
    expect(chain?.[1]?.orgAccess).toBeUndefined();
    expect((await storeB.listByOwner(`o_${RUN}`)).find((r) => r.id === child.id)?.orgAccess).toEqual(child.orgAccess);
    expect((await storeB.listForOrg('acme')).map((r) => r.id)).toEqual(expect.arrayContaining([child.id]));
    const soon = { ...rec({ expiresAt: new Date(NOW.getTime() + 3_600_000) }), orgAccess: [entry('acme', 'approved')] };
    expect(await storeA.insert(soon, NOW)).toBe('ok');
    const due = await storeB.markExpiring(86_400, NOW, 1000);
    expect(due.find((r) => r.id === soon.id)?.orgAccess).toEqual(soon.orgAccess);
  });

  it('listForOrg: named, full access and global-tier tokens; not tokens scoped to another org; never sessions', async () => {
    const named = rec({ scopes: [{ resource: 'zeta/web', permissions: ['repo:read'] }] });
    const other = rec({ scopes: [{ resource: 'zetaother', permissions: ['repo:read'] }] });
    const full = rec({ scopes: null });
    const global = rec({ scopes: [{ permissions: ['repo:read'] }] });
    for (const r of [named, other, full, global]) expect(await storeA.insert(r, NOW)).toBe('ok');
    const ids = (await storeA.listForOrg('zeta')).map((r) => r.id);
    expect(ids).toEqual(expect.arrayContaining([named.id, full.id, global.id]));
    expect(ids).not.toContain(other.id);
  });

  it('setPolicy returns the previous policy; a change through pool A is seen by B after its next chain read, which stays one statement', async () => {
    const t = rec();
    expect(await storeA.insert(t, NOW)).toBe('ok');
    await storeB.readChain(t.id);
    const before = await storeB.readPolicies();
    // Cached: no statement while no read showed a newer version.
    sentB.length = 0;
    expect(storeB.readPolicies()).toBe(before);
    expect(sentB).toHaveLength(0);
    expect(await storeA.setPolicy(policy('acme'))).toBeNull();
    expect(await storeA.setPolicy(policy('acme', { maxLifetimeDays: 30 }))).toEqual(policy('acme'));
    sentB.length = 0;
    await storeB.readChain(t.id);
    expect(sentB).toHaveLength(1);
    const after = await storeB.readPolicies();
    expect(after.version).not.toBe(before.version);
    expect(after.policies.find((p) => p.org === 'acme')).toEqual(policy('acme', { maxLifetimeDays: 30 }));
    expect(storeB.readPolicies()).toBe(after);
  });

  it("an org revocation through pool A holds on pool B's next chain read (the UPDATE moves the row version)", async () => {
    const t = { ...rec(), orgAccess: [entry('acme', 'approved', { justification: 'deploys', requestedAt: NOW })] };
    expect(await storeA.insert(t, NOW)).toBe('ok');
    await storeB.readChain(t.id);
    await storeB.readChain(t.id); // lean read from now on
    const revoked = entry('acme', 'revoked', { reason: 'left', decidedBy: 'alice', decidedAt: NOW });
    expect(await storeA.updateOrgAccess([{ id: t.id, from: ['pending', 'approved', 'denied', 'none'], entry: revoked }])).toEqual([t.id]);
    const [got] = (await storeB.readChain(t.id)) ?? [];
    // justification and requestedAt were kept: the new entry had none.
    expect(got?.orgAccess).toEqual([{ ...revoked, justification: 'deploys', requestedAt: NOW }]);
    // The from rule: revoked is not in from, nothing changes.
    expect(await storeA.updateOrgAccess([{ id: t.id, from: ['pending'], entry: entry('acme', 'approved') }])).toEqual([]);
    // A new org gets its own entry; one entry per org; unknown ids are ignored.
    expect(
      await storeA.updateOrgAccess([
        { id: t.id, from: ['none'], entry: entry('beta', 'approved') },
        { id: 'nope', from: ['none'], entry: entry('beta', 'approved') },
      ]),
    ).toEqual([t.id]);
    expect((await storeB.readChain(t.id))?.[0]?.orgAccess?.map((e) => e.org)).toEqual(['acme', 'beta']);
  });

  it('race: policy reads racing setPolicy through another pool never install an older set', async () => {
    const t = rec();
    expect(await storeA.insert(t, NOW)).toBe('ok');
    let last = -1n;
    for (let i = 1; i <= 15; i++) {
      const reads = Array.from({ length: 4 }, async () => {
        await storeB.readChain(t.id);
        return storeB.readPolicies();
      });
      const [, ...sets] = await Promise.all([storeA.setPolicy(policy('race', { maxLifetimeDays: i })), ...reads]);
      // What the cache answers afterwards is never older than anything it answered before.
      const cached = await storeB.readPolicies();
      for (const set of sets) expect(BigInt(cached.version) >= BigInt(set.version)).toBe(true);
      expect(BigInt(cached.version) >= last).toBe(true);
      last = BigInt(cached.version);
    }
    await storeB.readChain(t.id);
    expect((await storeB.readPolicies()).policies.find((p) => p.org === 'race')?.maxLifetimeDays).toBe(15);
  });

  it('setPolicy and updateOrgAccess refuse malformed input with ValidationError', async () => {
    await expect(storeA.setPolicy(policy('Acme'))).rejects.toBeInstanceOf(ValidationError);
    await expect(storeA.setPolicy(policy('acme', { maxLifetimeDays: 0 }))).rejects.toBeInstanceOf(ValidationError);
    await expect(storeA.updateOrgAccess([{ id: 'x', from: ['none'], entry: entry('acme', 'owner' as 'approved') }])).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(storeA.insert({ ...rec(), orgAccess: [entry('acme', 'approved'), entry('acme', 'denied')] }, NOW)).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('tampering: a hand-edited org_access fails closed with UnavailableError, never an allow', async () => {
    const t = { ...rec(), orgAccess: [entry('acme', 'approved')] };
    expect(await storeA.insert(t, NOW)).toBe('ok');
    await storeB.readChain(t.id);
    await a.query(`UPDATE ${TABLE} SET org_access = '[{"org":"acme","status":"superuser"}]' WHERE id = $1`, [t.id]);
    await expect(storeB.readChain(t.id)).rejects.toBeInstanceOf(UnavailableError);
    await a.query(`UPDATE ${TABLE} SET org_access = '{"org":"acme"}' WHERE id = $1`, [t.id]);
    await expect(storeB.readChain(t.id)).rejects.toBeInstanceOf(UnavailableError);
    await expect(storeB.updateOrgAccess([{ id: t.id, from: ['none'], entry: entry('x', 'approved') }])).rejects.toBeInstanceOf(
      UnavailableError,
    );
  });

  it('in-place upgrade: a table of the previous release keeps every token, readable, and governance works', async () => {
    for (const ddl of PREVIOUS_DDL(OLD)) await a.query(ddl);
    const parent = rec();
    const child = rec({ parentId: parent.id, scopes: [{ resource: 'acme', permissions: ['repo:read'] }] });
    for (const r of [parent, child]) {
      await a.query(
        `INSERT INTO ${OLD} (id, kind, owner_id, name, description, scopes, parent_id, created_at, expires_at, revoked_at, committer_identity)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11)`,
        [
          r.id,
          r.kind,
          r.ownerId,
          r.name,
          r.description,
          r.scopes === null ? null : JSON.stringify(r.scopes),
          r.parentId,
          r.createdAt,
          r.expiresAt,
          r.revokedAt,
          r.committerIdentity,
        ],
      );
    }
    const store = new PostgresTokenStore({ pool: a, table: OLD });
    await store.migrate();
    await store.migrate(); // again: nothing changes
    expect(await store.readChain(child.id)).toEqual([child, parent]);
    expect((await store.readPolicies()).policies).toEqual([]);
    expect(await store.setPolicy(policy('acme'))).toBeNull();
    expect((await store.readPolicies()).policies).toEqual([policy('acme')]);
    expect(await store.updateOrgAccess([{ id: child.id, from: ['none'], entry: entry('acme', 'approved') }])).toEqual([child.id]);
    expect((await store.listForOrg('acme')).map((r) => r.id)).toContain(child.id);
  });
});
