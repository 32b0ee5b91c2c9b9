/**
 * Attack: a workload token replayed on another server. Two `Auth` instances, each with its own pool on
 * one PostgreSQL database: the token exchanged on the first is refused on the second (the store's
 * shared replay cache), and the account they both read is the one PostgreSQL keeps.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type pg from 'pg';
import type { Auth } from '../../../src/service';
import { PostgresTokenStore } from '../../../src/stores/postgres';
import { generateKeyRing } from '../../../src/tokens';
import { Clock, NOW_SEC } from '../../support/clock';
import { startKeyServer, type KeyServer, type SigningKey } from '../../support/key-server';
import { RUN, describeWithDb, newPool, tableName } from '../../support/postgres';
import { accountRecord, githubClaims, workloadAuth } from './fixture';

const TABLE = tableName('svc_tokens_test', 'workload');
const withDb = describeWithDb(
  'workload replay on PostgreSQL',
  'PostgreSQL workload replay test',
  'test/service/workloads/postgres-replay.test.ts',
);

withDb('workload replay on PostgreSQL', () => {
  const pools: pg.Pool[] = [];
  const clock = new Clock();
  let idp: KeyServer & { first: SigningKey };
  let one: Auth;
  let two: Auth;

  beforeAll(async () => {
    const keys = await generateKeyRing();
    idp = await startKeyServer();
    const make = async (): Promise<[Auth, PostgresTokenStore]> => {
      const pool = newPool(`svc_auth_workload_${RUN}`, { max: 4 });
      pools.push(pool);
      const store = new PostgresTokenStore({ pool, table: TABLE });
      await store.migrate();
      return [workloadAuth({ idp, keys, now: clock.now, store }), store];
    };
    const [[a, store], [b]] = [await make(), await make()];
    await store.putServiceAccount(accountRecord());
    [one, two] = [a, b];
  });

  afterAll(async () => {
    const { rows } = await (pools[0] as pg.Pool).query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE tablename LIKE $1`, [
      `${TABLE}%`,
    ]);
    for (const { t } of rows) await pools[0]?.query(`DROP TABLE IF EXISTS "${t}" CASCADE`);
    await Promise.all(pools.map((p) => p.end()));
    await idp.close();
  });

  it('attack: a token exchanged on one server is refused on the other', async () => {
    const jwt = await idp.sign(idp.first, githubClaims(idp.issuer, NOW_SEC), { typ: 'JWT' });
    const got = await one.exchangeWorkloadToken(jwt);
    await expect(two.authenticate(got.token)).resolves.toMatchObject({ userId: 'sa:acme/ci-bot' });
    await expect(two.exchangeWorkloadToken(jwt)).rejects.toMatchObject({ code: 'authentication', reason: 'revoked' });
  });
});
