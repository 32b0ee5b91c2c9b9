/**
 * Issue 30 on PostgreSQL, through the service: two servers (two `createAuth`,
 * two pools) on one table. A policy, an approval and an org revocation made on
 * one hold on the other's next request (G4), for that org only (G2).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { ValidationError } from '../../../src/errors';
import type { Principal } from '../../../src/core/policy';
import type { Auth } from '../../../src/service';
import { PostgresTokenStore } from '../../../src/stores/postgres';
import { testAuth } from '../../support/auth';
import { Clock } from '../../support/clock';
import { rejection } from '../../support/errors';
import { RUN, describeWithDb, newPool, tableName } from '../../support/postgres';

const TABLE = tableName('svc_tokens_test', 'orgs');
const APP = `svc_auth_orgs_${RUN}`;
const ROLES = {
  alice: { orgs: { acme: 'owner' as const, globex: 'owner' as const } },
  bob: { orgs: { acme: 'editor' as const, globex: 'editor' as const } },
};
const READ = (resource: string): { resource: string; permissions: string[] } => ({ resource, permissions: ['repo:read'] });

const withDb = describeWithDb(
  'org governance on PostgreSQL, two instances',
  'PostgreSQL org governance tests',
  'test/service/orgs/postgres-orgs.test.ts',
);

withDb('org governance on PostgreSQL, two instances', () => {
  const pools: pg.Pool[] = [];
  const clock = new Clock();
  let a: Auth;
  let b: Auth;
  let ownerOnA: Principal;
  let bobOnA: Principal;

  beforeAll(async () => {
    const make = async (): Promise<Auth> => {
      const pool = newPool(APP, { max: 4 });
      pools.push(pool);
      const tokens = new PostgresTokenStore({ pool, table: TABLE });
      await tokens.migrate();
      return (await testAuth({ tokens, clock, roles: ROLES })).auth;
    };
    a = await make();
    b = await make();
    ownerOnA = await a.authenticate(await a.issueSession('alice'));
    bobOnA = await a.authenticate(await a.issueSession('bob'));
  });

  afterAll(async () => {
    for (const suffix of ['', '_org_policies', '_governance', '_dpop_proofs']) {
      await pools[0]?.query(`DROP TABLE IF EXISTS ${TABLE}${suffix}`);
    }
    await Promise.all(pools.map((p) => p.end()));
  });

  it('a 90-day policy set on A refuses at creation on B, and an older token at use on B in that org only', async () => {
    const { token } = await a
      .client(bobOnA)
      .token.create({ name: 'old', scopes: [READ('acme/web'), READ('globex/web')], expiresIn: '365d' });
    expect(b.authorize(await b.authenticate(token), 'acme/web', 'repo:read')).toEqual({ allowed: true });

    await a.client(ownerOnA).org('acme').policy.set({ maxLifetime: '90d' });
    const onB = await b.authenticate(token);
    expect(b.authorize(onB, 'acme/web', 'repo:read')).toMatchObject({ allowed: false, reason: 'policy' });
    expect(b.authorize(onB, 'globex/web', 'repo:read')).toEqual({ allowed: true });

    const bobOnB = await b.authenticate(await b.issueSession('bob'));
    const err = await rejection(b.client(bobOnB).token.create({ name: 'long', scopes: [READ('acme/web')], expiresIn: '365d' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain('at most 90 days');
    await a.client(ownerOnA).org('acme').policy.set({ maxLifetime: null });
  });

  it('approval on A lets the token in on B; an org revocation on A holds on B for the token and its child', async () => {
    await a.client(ownerOnA).org('acme').policy.set({ requireApproval: true });
    const { token, info } = await a.client(bobOnA).token.create({
      name: 'ci',
      scopes: [READ('acme/web'), READ('globex/web')],
      justification: 'deploys',
    });
    expect(info.orgAccess).toEqual([expect.objectContaining({ org: 'acme', status: 'pending' })]);
    expect(b.authorize(await b.authenticate(token), 'acme/web', 'repo:read')).toMatchObject({ reason: 'policy' });

    const pending = await a.client(ownerOnA).org('acme').requests.list();
    expect(pending.map((r) => r.id)).toContain(info.id);
    await a.client(ownerOnA).org('acme').requests.approve([info.id], { reason: 'ok' });
    const approved = await b.authenticate(token);
    expect(b.authorize(approved, 'acme/web', 'repo:read')).toEqual({ allowed: true });

    const child = await b.client(approved).token.create({ name: 'child', scopes: [READ('acme/web')] });
    const childOnB = await b.authenticate(child.token);
    expect(b.authorize(childOnB, 'acme/web', 'repo:read')).toEqual({ allowed: true });

    await a.client(ownerOnA).org('acme').tokens.revoke([info.id], { reason: 'left the team' });
    expect(b.authorize(await b.authenticate(token), 'acme/web', 'repo:read')).toMatchObject({ reason: 'policy' });
    expect(b.authorize(await b.authenticate(child.token), 'acme/web', 'repo:read')).toMatchObject({ reason: 'policy' });
    // The token lives on for its other org.
    expect(b.authorize(await b.authenticate(token), 'globex/web', 'repo:read')).toEqual({ allowed: true });
  });
});
