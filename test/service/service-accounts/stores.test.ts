/**
 * The done-when of service accounts on the three stores: a disabled account's PATs, machine
 * clients and exchanged tokens are all refused on the next request; enabling lets the PAT in
 * again; and with PostgreSQL, a second server sharing the database sees the change at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyRing, type KeyRing } from '../../../src/tokens';
import { internalsOf, type Auth } from '../../../src/service';
import type { Principal } from '../../../src/core/policy';
import { PostgresTokenStore } from '../../../src/stores/postgres';
import { Clock, NOW_SEC } from '../../support/clock';
import { startKeyServer, type KeyServer, type SigningKey } from '../../support/key-server';
import { dropStores, tokenStores } from '../../support/token-stores';
import { describeWithDb, newPool, RUN, tableName } from '../../support/postgres';
import { githubClaims, workloadAuth } from '../workloads/fixture';

let idp: KeyServer & { first: SigningKey };
let keys: KeyRing;
const clock = new Clock();

beforeAll(async () => {
  [idp, keys] = await Promise.all([startKeyServer(), generateKeyRing()]);
});
afterAll(async () => {
  await idp.close();
  await dropStores();
});

const OWNER = (u: string) => (u === 'olive' ? { orgs: { acme: 'owner' as const } } : {});

async function owner(auth: Auth): Promise<Principal> {
  return auth.principalFor('olive');
}

describe.each(tokenStores('test/service/service-accounts/stores.test.ts'))('a disabled service account on the %s store', (_name, make) => {
  it('refuses its PATs, its machine clients and its exchanged tokens on the next request; enabling lets the PAT in again', async () => {
    const auth = workloadAuth({ idp, keys, now: clock.now, store: await make(), roles: OWNER });
    const acme = auth.client(await owner(auth)).org('acme');
    await acme.serviceAccounts.create({ name: 'ci-bot', role: 'editor' });
    const { token: pat } = await acme
      .serviceAccount('ci-bot')
      .token.create({ name: 'deploy', scopes: [{ resource: 'acme/api', permissions: ['repo:write'] }] });
    const { clientId } = await acme.serviceAccount('ci-bot').clients.create({ secret: true });
    const exchanged = await auth.exchangeWorkloadToken(await idp.sign(idp.first, githubClaims(idp.issuer, NOW_SEC), { typ: 'JWT' }));
    const machines = internalsOf(auth)?.machines;
    expect(await machines?.findClient(clientId)).not.toBeNull();
    for (const t of [pat, exchanged.token]) expect(auth.authorize(await auth.authenticate(t), 'acme/api', 'repo:write').allowed).toBe(true);

    await acme.serviceAccounts.update('ci-bot', { disabled: true });
    for (const t of [pat, exchanged.token]) await expect(auth.authenticate(t)).rejects.toMatchObject({ reason: 'revoked' });
    expect(await machines?.findClient(clientId)).toBeNull();
    const again = await idp.sign(idp.first, githubClaims(idp.issuer, NOW_SEC, { jti: `j-${RUN}-${Math.random()}` }), { typ: 'JWT' });
    await expect(auth.exchangeWorkloadToken(again)).rejects.toBeDefined();

    await acme.serviceAccounts.update('ci-bot', { disabled: false });
    await expect(auth.authenticate(pat)).resolves.toMatchObject({ userId: 'sa:acme/ci-bot' });
  });
});

describeWithDb(
  'service accounts on two servers',
  'two-server service account test',
  'test/service/service-accounts/stores.test.ts',
)('two servers sharing PostgreSQL', () => {
  it('an account disabled or lowered on one server holds on the other at once', async () => {
    const table = tableName('svc_sa_two');
    const pools = [newPool(`svc_sa_a_${RUN}`), newPool(`svc_sa_b_${RUN}`)];
    try {
      const stores = pools.map((pool) => new PostgresTokenStore({ pool, table }));
      await stores[0]?.migrate();
      const [a, b] = stores.map((store) => workloadAuth({ idp, keys, now: clock.now, store, roles: OWNER })) as [Auth, Auth];
      const acme = a.client(await owner(a)).org('acme');
      await acme.serviceAccounts.create({ name: 'ci-bot', role: 'editor' });
      const { token } = await acme.serviceAccount('ci-bot').token.create({ name: 't' });
      expect(b.authorize(await b.authenticate(token), 'acme/web', 'repo:write').allowed).toBe(true);
      await acme.serviceAccounts.update('ci-bot', { role: 'viewer' });
      expect(b.authorize(await b.authenticate(token), 'acme/web', 'repo:write').allowed).toBe(false);
      await acme.serviceAccounts.update('ci-bot', { disabled: true });
      await expect(b.authenticate(token)).rejects.toMatchObject({ reason: 'revoked' });
    } finally {
      await pools[0]?.query(
        `DROP TABLE IF EXISTS ${table}, ${table}_service_accounts, ${table}_machine_clients, ${table}_dpop_proofs, ${table}_org_policies, ${table}_governance`,
      );
      await Promise.all(pools.map((p) => p.end()));
    }
  });
});
