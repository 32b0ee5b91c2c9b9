/**
 * Issue 33 goal 5 on PostgreSQL: a service account's PAT waits for one round trip, as a person's does.
 * Its roles are in the account's record, whose id the token names, so the account is read while the
 * token's chain read is on the wire (the store is the real PostgresTokenStore; the wrapper only notes
 * when each call starts and ends, and holds the chain read back 100 ms). The order of refusals holds:
 * a revoked token is refused for its revocation even when its account is disabled too, and a live
 * token of a disabled account for the account.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { createAuth, type Auth } from '../../src/service';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { generateKeyRing } from '../../src/tokens';
import { RUN, describeWithDb, newPool, tableName, traceCalls } from '../support/postgres';

const TABLE = tableName('svc_tokens_account_rt');
const withDb = describeWithDb(
  'account round trip',
  'PostgreSQL service-account round-trip tests',
  'test/service/account-round-trip.test.ts',
);

withDb("a service account's PAT on PostgreSQL", () => {
  let pool: pg.Pool;
  let auth: Auth;
  const log: string[] = [];

  beforeAll(async () => {
    pool = newPool(`svc_auth_account_rt_${RUN}`);
    const store = new PostgresTokenStore({ pool, table: TABLE });
    await store.migrate();
    traceCalls(store, log, { readChain: 'chain', readServiceAccount: 'account' }, { method: 'readChain', ms: 100 });
    auth = createAuth({
      issuer: 'https://svc.test',
      keys: await generateKeyRing(),
      tokens: store,
      members: { rolesOf: () => ({ orgs: { acme: 'owner' } }) },
    });
  });

  afterAll(async () => {
    const sides = ['org_policies', 'governance', 'dpop_proofs', 'service_accounts', 'machine_clients'].map((s) => `${TABLE}_${s}`);
    await pool.query(`DROP TABLE IF EXISTS ${[TABLE, ...sides].join(', ')}`);
    await pool.end();
  });

  async function botToken(bot: string, name: string): Promise<string> {
    const acme = auth.client(await auth.authenticate(await auth.issueSession('alice'))).org('acme');
    if ((await acme.serviceAccounts.list()).every((a) => a.name !== bot)) await acme.serviceAccounts.create({ name: bot, role: 'editor' });
    return (await acme.serviceAccount(bot).token.create({ name, scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;
  }

  it("the account is read while the token's chain read is on the wire: one round trip of waiting", async () => {
    const token = await botToken('ci-bot', 'overlap');
    for (let i = 0; i < 3; i++) {
      log.length = 0;
      const p = await auth.authenticate(token);
      expect(p.userId).toBe('sa:acme/ci-bot');
      expect(auth.authorize(p, 'acme/web', 'repo:read').allowed).toBe(true);
      expect(log.filter((e) => e.endsWith(':start')).sort()).toEqual(['account:start', 'chain:start']);
      expect(log.indexOf('account:start')).toBeLessThan(log.indexOf('chain:end'));
    }
  });

  it('a person’s PAT reads no account', async () => {
    const me = auth.client(await auth.authenticate(await auth.issueSession('alice')));
    const { token } = await me.token.create({ name: 'mine' });
    log.length = 0;
    await auth.authenticate(token);
    expect(log).toEqual(['chain:start', 'chain:end']);
  });

  it('refusals keep their order: a revoked token of a disabled account is refused for its revocation; a live one for the account', async () => {
    const acme = auth.client(await auth.authenticate(await auth.issueSession('alice'))).org('acme');
    const live = await botToken('paused-bot', 'live');
    await acme.serviceAccounts.update('paused-bot', { disabled: true });
    await expect(auth.authenticate(live)).rejects.toMatchObject({ reason: 'revoked', message: expect.stringContaining('disabled') });
    const gone = await botToken('gone-bot', 'gone');
    await acme.serviceAccount('gone-bot').token.revoke('gone');
    await acme.serviceAccounts.update('gone-bot', { disabled: true });
    const refused = (await auth.authenticate(gone).catch((e: unknown) => e)) as Error & { reason?: string };
    expect(refused.reason).toBe('revoked');
    expect(refused.message).not.toContain('disabled');
  });
});
