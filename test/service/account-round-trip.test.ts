/**
 * Issue 33 goal 5 on PostgreSQL: a service account's PAT costs one statement, as a person's does.
 * Its roles are in the account's record, whose id the token names: the account is asked for in the
 * same turn as the token's chain, and its read rides on the chain read's statement (the store is the
 * real PostgresTokenStore; the pool notes each statement its connections send). The order of refusals
 * holds: a revoked token is refused for its revocation even when its account is disabled too, and a
 * live token of a disabled account for the account. The request path reads the account through
 * the store's own deadline (BOUNDED_ACCOUNT): it answers as the service's deadline around
 * `readServiceAccount` does, property-tested side by side.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { createAuth, type Auth } from '../../src/service';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { BOUNDED_ACCOUNT, type BoundedAccountSource } from '../../src/stores';
import { generateKeyRing } from '../../src/tokens';
import { describeWithDb, newPool, recordStatements, RUN, tableName } from '../support/postgres';

const TABLE = tableName('svc_tokens_account_rt');
const withDb = describeWithDb(
  'account round trip',
  'PostgreSQL service-account round-trip tests',
  'test/service/account-round-trip.test.ts',
);

withDb("a service account's PAT on PostgreSQL", () => {
  let pool: pg.Pool;
  let auth: Auth;
  let slow: Auth;
  const sent: string[] = [];
  const took = { bounded: 0, declined: 0 };

  beforeAll(async () => {
    pool = newPool(`svc_auth_account_rt_${RUN}`);
    recordStatements(pool, sent);
    const store = new PostgresTokenStore({ pool, table: TABLE });
    await store.migrate();
    const keys = await generateKeyRing();
    const members = { rolesOf: () => ({ orgs: { acme: 'owner' as const } }) };
    auth = createAuth({ issuer: 'https://svc.test', keys, tokens: store, members });
    // The slow path: a store whose readServiceAccount was replaced declines BOUNDED_ACCOUNT.
    const declining = new PostgresTokenStore({ pool, table: TABLE });
    const read = declining.readServiceAccount.bind(declining);
    Object.assign(declining, { readServiceAccount: (org: string, name: string) => (took.declined++, read(org, name)) });
    const bounded = (store as BoundedAccountSource)[BOUNDED_ACCOUNT] as NonNullable<BoundedAccountSource[typeof BOUNDED_ACCOUNT]>;
    Object.assign(store, { [BOUNDED_ACCOUNT]: (...args: [string, string, number]) => (took.bounded++, bounded.apply(store, args)) });
    slow = createAuth({ issuer: 'https://svc.test', keys, tokens: declining, members });
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

  it("the account rides on the token's chain read: one statement, the first time (full read) and hot (lean read)", async () => {
    const token = await botToken('ci-bot', 'overlap');
    for (let i = 0; i < 3; i++) {
      sent.length = 0;
      const p = await auth.authenticate(token);
      expect(p.userId).toBe('sa:acme/ci-bot');
      expect(auth.authorize(p, 'acme/web', 'repo:read').allowed).toBe(true);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toContain(`${TABLE}_service_accounts`);
    }
  });

  it('a role lowered on the account narrows the next request, still in one statement', async () => {
    await botToken('ci-bot', 'first-of-lowered');
    const acme = auth.client(await auth.authenticate(await auth.issueSession('alice'))).org('acme');
    const scopes = [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }];
    const { token } = await acme.serviceAccount('ci-bot').token.create({ name: 'lowered', scopes });
    expect(auth.authorize(await auth.authenticate(token), 'acme/web', 'repo:write').allowed).toBe(true);
    await acme.serviceAccounts.update('ci-bot', { role: 'viewer' });
    sent.length = 0;
    const p = await auth.authenticate(token);
    expect(sent).toHaveLength(1);
    expect(auth.authorize(p, 'acme/web', 'repo:write').allowed).toBe(false);
    expect(auth.authorize(p, 'acme/web', 'repo:read').allowed).toBe(true);
    await acme.serviceAccounts.update('ci-bot', { role: 'editor' });
  });

  it('a person’s PAT reads no account', async () => {
    const me = auth.client(await auth.authenticate(await auth.issueSession('alice')));
    const { token } = await me.token.create({ name: 'mine' });
    for (let i = 0; i < 2; i++) {
      sent.length = 0;
      await auth.authenticate(token);
      expect(sent).toHaveLength(1);
      expect(sent[0]).not.toContain('service_accounts');
    }
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

  it('property: the bounded account read answers as the read under the service deadline, through role changes and disabling', async () => {
    const acme = auth.client(await auth.authenticate(await auth.issueSession('alice'))).org('acme');
    await botToken('side-bot', 'first');
    const all = ['repo:read', 'repo:write', 'repo:admin'];
    const { token } = await acme
      .serviceAccount('side-bot')
      .token.create({ name: 'wide', scopes: [{ resource: 'acme/web', permissions: all }] });
    const answer = async (a: Auth): Promise<unknown> => {
      try {
        const p = await a.authenticate(token);
        return { user: p.userId, allowed: all.map((perm) => a.authorize(p, 'acme/web', perm).allowed) };
      } catch (err) {
        return { refused: (err as { reason?: unknown }).reason };
      }
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ role: fc.constantFrom('owner', 'admin', 'editor', 'viewer'), disabled: fc.boolean() }), {
          minLength: 1,
          maxLength: 4,
        }),
        async (changes) => {
          for (const change of changes) {
            await acme.serviceAccounts.update('side-bot', change);
            const [fast, slowly] = await Promise.all([answer(auth), answer(slow)]);
            expect(fast).toEqual(slowly);
            expect(fast).toEqual(await answer(auth)); // and again, hot
          }
        },
      ),
      { numRuns: 12 },
    );
    // Each side took its own path.
    expect(took.bounded).toBeGreaterThan(0);
    expect(took.declined).toBeGreaterThan(0);
  });
});
