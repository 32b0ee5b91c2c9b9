/**
 * Workload identity federation (W3): a GitHub-Actions-shaped token from a loopback issuer
 * (discovery + JWKS served by node:http, real signatures) is exchanged for a short-lived
 * token of a service account only on an exact match of a rule's claims, once per jti.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../../src/stores';
import { generateKeyRing, type KeyRing } from '../../../src/tokens';
import type { AuthEvent } from '../../../src/service';
import { Clock, NOW_SEC } from '../../support/clock';
import { startKeyServer, withHeader, type KeyServer, type SigningKey } from '../../support/key-server';
import { accountRecord, AUDIENCE, githubClaims, workloadAuth } from './fixture';

let idp: KeyServer & { first: SigningKey };
let keys: KeyRing;
const clock = new Clock();

beforeAll(async () => {
  [idp, keys] = await Promise.all([startKeyServer(), generateKeyRing()]);
});
afterAll(async () => {
  await idp.close();
});

async function withAccount(more: Parameters<typeof accountRecord>[0] = {}): Promise<MemoryTokenStore> {
  const store = new MemoryTokenStore();
  await store.putServiceAccount(accountRecord(more));
  return store;
}

function jwt(more: Record<string, unknown> = {}, key: SigningKey = idp.first): Promise<string> {
  return idp.sign(key, githubClaims(idp.issuer, NOW_SEC, more), { typ: 'JWT' });
}

describe('exchangeWorkloadToken', () => {
  it('matching claims give a 15-minute token of the account, narrowed by the rule, with a token.created event', async () => {
    const events: AuthEvent[] = [];
    const auth = workloadAuth({ idp, keys, now: clock.now, store: await withAccount(), events });
    const got = await auth.exchangeWorkloadToken(await jwt());
    expect(got.serviceAccount).toEqual({ org: 'acme', name: 'ci-bot' });
    expect(got.expiresAt.getTime()).toBe(clock.ms + 15 * 60_000);
    expect(got.scopes).toEqual([{ resource: 'acme/api', permissions: ['repo:read', 'repo:write'] }]);
    const p = await auth.authenticate(got.token);
    expect(p).toMatchObject({ kind: 'pat', userId: 'sa:acme/ci-bot', tokenId: got.tokenId });
    await auth.flush();
    const created = events.find((e) => e.type === 'token.created');
    expect(created).toMatchObject({ token: { id: got.tokenId, ownerId: 'sa:acme/ci-bot' } });
    expect(JSON.stringify(events)).not.toContain(got.token);
  });

  it('one claim different is refused, naming that claim and never its value', async () => {
    const auth = workloadAuth({ idp, keys, now: clock.now, store: await withAccount() });
    const err = await auth.exchangeWorkloadToken(await jwt({ ref: 'refs/heads/evil-branch' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'forbidden' });
    expect((err as Error).message).toContain('ref');
    expect((err as Error).message).not.toContain('repository');
    expect((err as Error).message).not.toContain('evil-branch');
  });

  it('a claim of the same text but another type does not match (strict equality)', async () => {
    const rules = [{ claims: { run_id: 4242 }, serviceAccount: 'acme/ci-bot' }];
    const auth = workloadAuth({ idp, keys, now: clock.now, store: await withAccount(), rules });
    await expect(auth.exchangeWorkloadToken(await jwt())).rejects.toMatchObject({ code: 'forbidden' });
    await expect(auth.exchangeWorkloadToken(await jwt({ run_id: 4242 }))).resolves.toMatchObject({ serviceAccount: { name: 'ci-bot' } });
  });

  it('the first matching rule wins, and its expiresIn holds', async () => {
    const store = await withAccount();
    await store.putServiceAccount(accountRecord({ name: 'reader' }));
    const rules = [
      { claims: { repository: 'acme/api' }, serviceAccount: 'acme/reader', expiresIn: '5m' },
      { claims: { repository: 'acme/api', ref: 'refs/heads/main' }, serviceAccount: 'acme/ci-bot' },
    ];
    const auth = workloadAuth({ idp, keys, now: clock.now, store, rules });
    const got = await auth.exchangeWorkloadToken(await jwt());
    expect(got.serviceAccount.name).toBe('reader');
    expect(got.expiresAt.getTime()).toBe(clock.ms + 5 * 60_000);
    expect(got.scopes).toBeNull();
  });

  it('attack: a replayed token is refused (memory replay cache of one instance)', async () => {
    const auth = workloadAuth({ idp, keys, now: clock.now, store: await withAccount() });
    const token = await jwt();
    await auth.exchangeWorkloadToken(token);
    await expect(auth.exchangeWorkloadToken(token)).rejects.toMatchObject({ code: 'authentication', reason: 'revoked' });
  });

  it('a disabled or missing account is refused, and the refusal does not spend the token', async () => {
    const store = await withAccount({ disabled: true });
    const auth = workloadAuth({ idp, keys, now: clock.now, store });
    const token = await jwt();
    await expect(auth.exchangeWorkloadToken(token)).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('disabled'),
    });
    const missing = workloadAuth({ idp, keys, now: clock.now, store: new MemoryTokenStore() });
    await expect(missing.exchangeWorkloadToken(await jwt())).rejects.toMatchObject({ code: 'forbidden' });
    await store.putServiceAccount(accountRecord({ disabled: false, version: 2 }));
    await expect(auth.exchangeWorkloadToken(token)).resolves.toMatchObject({ serviceAccount: { name: 'ci-bot' } });
  });

  describe('attacks on the token', () => {
    const cases: [string, () => Promise<string>, string][] = [
      ['wrong aud', () => jwt({ aud: 'https://other.test' }), 'audience'],
      ['aud a list naming us among others', () => jwt({ aud: [AUDIENCE, 'https://other.test'] }), 'audience'],
      ['expired', () => jwt({ iat: NOW_SEC - 900, nbf: NOW_SEC - 900, exp: NOW_SEC - 60 }), 'expired'],
      ['nbf in the future', () => jwt({ nbf: NOW_SEC + 120 }), 'not_yet_valid'],
      ['iat in the future', () => jwt({ iat: NOW_SEC + 120, exp: NOW_SEC + 600 }), 'not_yet_valid'],
      ['no jti', () => jwt({ jti: undefined }), 'malformed'],
      ['no exp', () => jwt({ exp: undefined }), 'malformed'],
      ['alg none', async () => withHeader(await jwt(), { alg: 'none', typ: 'JWT' }, ''), 'malformed'],
      ['alg none with a signature', async () => withHeader(await jwt(), { alg: 'none', typ: 'JWT' }), 'algorithm'],
      ['HS256 (the public key as a secret)', async () => withHeader(await jwt(), { alg: 'HS256', typ: 'JWT', kid: 'first' }), 'algorithm'],
      ['a key not in the JWKS', async () => jwt({}, await idp.key('ES256', 'stranger')), 'key'],
      ['another issuer', () => idp.sign(idp.first, githubClaims('https://token.actions.githubusercontent.com', NOW_SEC)), 'issuer'],
      [
        'a forged signature',
        async () => {
          const t = await jwt();
          return `${t.slice(0, -4)}AAAA`;
        },
        'signature',
      ],
    ];
    for (const [name, make, reason] of cases) {
      it(`attack: ${name} is refused (${reason})`, async () => {
        const auth = workloadAuth({ idp, keys, now: clock.now, store: await withAccount() });
        await expect(auth.exchangeWorkloadToken(await make())).rejects.toMatchObject({ code: 'authentication', reason });
      });
    }
    it('attack: hostile input (not a string, huge, garbage) is a typed refusal', async () => {
      const auth = workloadAuth({ idp, keys, now: clock.now, store: await withAccount() });
      for (const bad of [undefined, 42, '', 'a.b.c', 'x'.repeat(100_000), '{}.{}.{}'])
        await expect(auth.exchangeWorkloadToken(bad as string)).rejects.toMatchObject({ code: 'authentication' });
    });
  });

  it('without trustedWorkloads every token is refused', async () => {
    const { createAuth } = await import('../../../src/service');
    const auth = createAuth({ issuer: 'https://svc.test', keys, members: { rolesOf: () => ({}) } });
    await expect(auth.exchangeWorkloadToken(await jwt())).rejects.toMatchObject({ code: 'authentication', reason: 'issuer' });
  });
});

describe('replay across servers and options', () => {
  it('attack: a token exchanged on one server is refused on another sharing the store (shared claimProof)', async () => {
    const store = await withAccount();
    const one = workloadAuth({ idp, keys, now: clock.now, store });
    const two = workloadAuth({ idp, keys, now: clock.now, store });
    const token = await jwt();
    await one.exchangeWorkloadToken(token);
    await expect(two.exchangeWorkloadToken(token)).rejects.toMatchObject({ code: 'authentication', reason: 'revoked' });
  });

  it('asked scopes narrow the rule; asking for more is a ValidationError', async () => {
    const auth = workloadAuth({ idp, keys, now: clock.now, store: await withAccount() });
    const got = await auth.exchangeWorkloadToken(await jwt(), { scopes: ['acme/api=repo:read'] });
    expect(got.scopes).toEqual([{ resource: 'acme/api', permissions: ['repo:read'] }]);
    await expect(auth.exchangeWorkloadToken(await jwt(), { scopes: ['acme=org:admin'] })).rejects.toMatchObject({ code: 'validation' });
  });

  it("the org's policy holds for an exchanged token: an org that approves tokens is asked, and the token waits for it", async () => {
    const events: AuthEvent[] = [];
    const roles = (id: string): { orgs: Record<string, 'owner'> } => (id === 'alice' ? { orgs: { acme: 'owner' } } : { orgs: {} });
    const auth = workloadAuth({ idp, keys, now: clock.now, store: await withAccount(), events, roles });
    const owner = await auth.authenticate(await auth.issueSession('alice'));
    await auth.client(owner).org('acme').policy.set({ requireApproval: true });
    const got = await auth.exchangeWorkloadToken(await jwt());
    const p = await auth.authenticate(got.token);
    expect(auth.authorize(p, 'acme/api', 'repo:read')).toMatchObject({ allowed: false, reason: 'policy' });
    await auth.flush();
    expect(events.some((e) => e.type === 'token.requested' && e.org === 'acme' && e.token.id === got.tokenId)).toBe(true);
    await auth.client(owner).org('acme').requests.approve([got.tokenId]);
    expect(auth.authorize(await auth.authenticate(got.token), 'acme/api', 'repo:read')).toEqual({ allowed: true });
  });

  it('misuse of trustedWorkloads fails when createAuth is called, every issue at once', () => {
    let err: unknown;
    try {
      workloadAuth({
        idp,
        keys,
        now: clock.now,
        rules: [
          { claims: {}, serviceAccount: 'acme', expiresIn: '2h', scopes: ['=='] },
          { claims: { ref: [] }, serviceAccount: 'acme/x' },
        ],
      });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'validation' });
    const paths = (err as { issues: { path: unknown[] }[] }).issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'trustedWorkloads.0.rules.0.claims',
        'trustedWorkloads.0.rules.0.serviceAccount',
        'trustedWorkloads.0.rules.0.expiresIn',
        'trustedWorkloads.0.rules.1.claims.ref',
      ]),
    );
  });
});
