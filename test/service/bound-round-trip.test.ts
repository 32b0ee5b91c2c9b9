/**
 * Issue 32 §3 on PostgreSQL: a key-bound PAT's request waits for one round trip, not two. Its proof is
 * checked and its replay claim sent before the chain read returns, so the two statements are on the
 * wire together (the store below is the real PostgresTokenStore; the wrapper only notes when each call
 * starts and ends). And the order of checks still fails closed: a revoked token with a fresh proof is
 * refused as revoked, a proof by another key as `dpop`, a replay as `dpop`, an unbound token with a
 * proof as `bound`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { createAuth, type Auth } from '../../src/service';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { generateKeyRing } from '../../src/tokens';
import { newKey, proof, type TestKey } from '../support/dpop';
import { RUN, describeWithDb, newPool, tableName, traceCalls } from '../support/postgres';

const TABLE = tableName('svc_tokens_bound_rt');
const URL_ = 'https://api.svc.test/api/whoami';
const withDb = describeWithDb('bound PAT round trip', 'PostgreSQL bound round-trip tests', 'test/service/bound-round-trip.test.ts');

withDb('a bound PAT on PostgreSQL', () => {
  let pool: pg.Pool;
  let auth: Auth;
  let key: TestKey;
  const log: string[] = [];

  beforeAll(async () => {
    pool = newPool(`svc_auth_bound_rt_${RUN}`);
    const store = new PostgresTokenStore({ pool, table: TABLE });
    await store.migrate();
    // The chain read is held back 100 ms, so that a claim which waited for it would start after it ended.
    traceCalls(store, log, { readChain: 'chain', claimProof: 'claim' }, { method: 'readChain', ms: 100 });
    auth = createAuth({
      issuer: 'https://svc.test',
      keys: await generateKeyRing(),
      tokens: store,
      members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
    });
    key = await newKey();
  });

  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${TABLE}, ${TABLE}_org_policies, ${TABLE}_governance, ${TABLE}_dpop_proofs`);
    await pool.end();
  });

  async function boundPat(name: string, bindKey = key): Promise<{ token: string; id: string }> {
    const me = await auth.authenticate(await auth.issueSession('alice'));
    const made = await auth.client(me).token.create({ name, bindKey: bindKey.publicJwk });
    return { token: made.token, id: made.info.id };
  }
  async function request(token: string, by = key, scheme = 'DPoP'): Promise<Request> {
    return new Request(URL_, { headers: { authorization: `${scheme} ${token}`, dpop: await proof(by, { url: URL_, token }) } });
  }

  it('the replay claim is sent while the chain read is on the wire: one round trip of waiting', async () => {
    const { token } = await boundPat('overlap');
    for (let i = 0; i < 3; i++) {
      log.length = 0;
      expect((await auth.authenticateRequest(await request(token))).userId).toBe('alice');
      expect(log.filter((e) => e.endsWith(':start')).sort()).toEqual(['chain:start', 'claim:start']);
      expect(log.indexOf('claim:start')).toBeLessThan(log.indexOf('chain:end'));
    }
  });

  it('the checks still fail closed, each with its own reason', async () => {
    const { token, id } = await boundPat('order');
    const replayed = await request(token);
    await auth.authenticateRequest(replayed.clone());
    await expect(auth.authenticateRequest(replayed)).rejects.toMatchObject({ reason: 'dpop' });
    await expect(auth.authenticateRequest(await request(token, await newKey()))).rejects.toMatchObject({ reason: 'dpop' });
    const unbound = (await auth.client(await auth.authenticate(await auth.issueSession('alice'))).token.create({ name: 'plain' })).token;
    await expect(auth.authenticateRequest(await request(unbound))).rejects.toMatchObject({ reason: 'bound' });
    await expect(auth.authenticateRequest(new Request(URL_, { headers: { authorization: `Bearer ${token}` } }))).rejects.toMatchObject({
      reason: 'bound',
    });
    await auth.revokeToken(id);
    await expect(auth.authenticateRequest(await request(token))).rejects.toMatchObject({ reason: 'revoked' });
  });
});
