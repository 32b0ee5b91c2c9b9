/**
 * The request path runs in the caller's turn when nothing waits (a hot token on an in-process store and
 * membership source: `drive` over the steps of `authenticate`), and asynchronously otherwise. One body
 * serves both, and this holds it to that: for any credential, header and route, an `Auth` whose store
 * and membership source answer at once, and one over the same records whose store hides its synchronous
 * read and whose membership source answers with promises, give the same principal and decision, or the
 * same refusal. And the first really answers at once.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { SvcAuthError } from '../../src/errors';
import { internalsOf } from '../../src/service';
import { MemoryTokenStore } from '../../src/stores';
import type { UserRoles } from '../../src/core/policy';
import { testAuth, type TestAuth } from '../support/auth';
import { Clock } from '../support/clock';
import { newKey } from '../support/dpop';
import { waitingStore } from '../support/token-stores';

const ROLES: Record<string, UserRoles> = {
  alice: { orgs: { acme: 'owner' } },
  bob: { orgs: { acme: 'viewer' }, repos: { 'other/site': 'admin' } },
};

type Outcome = { refused: string } | { user: string; kind: string; token: string | undefined; expires: number; allowed: boolean[] };

const ROUTES: [string, string][] = [
  ['acme/web', 'repo:read'],
  ['acme/web', 'repo:write'],
  ['acme', 'org:admin'],
  ['other/site', 'repo:read'],
];

function outcome(s: TestAuth, p: Awaited<ReturnType<TestAuth['auth']['authenticate']>>): Outcome {
  return {
    user: p.userId,
    kind: p.kind,
    token: p.tokenId,
    expires: p.expiresAt.getTime(),
    allowed: ROUTES.map(([r, perm]) => s.auth.authorize(p, r, perm).allowed),
  };
}

const refusal = (err: unknown): Outcome => ({
  refused: err instanceof SvcAuthError ? `${err.code}:${(err as { reason?: string }).reason ?? ''}: ${err.message}` : 'not ours',
});

describe('the request path answers alike at once and after waiting', () => {
  let fast: TestAuth;
  let slow: TestAuth;
  const headers: string[] = [];

  beforeAll(async () => {
    const clock = new Clock();
    const store = new MemoryTokenStore();
    fast = await testAuth({ clock, tokens: store, roles: ROLES });
    slow = await testAuth({
      clock,
      tokens: waitingStore(store),
      keys: fast.keys,
      members: { rolesOf: (u) => Promise.resolve(ROLES[u] ?? {}) },
    });
    const alice = fast.auth.client(await fast.auth.authenticate(await fast.auth.issueSession('alice')));
    const bob = await fast.auth.issueSession('bob');
    const read = (await alice.token.create({ name: 'read', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;
    const wide = (await alice.token.create({ name: 'wide' })).token;
    const revoked = (await alice.token.create({ name: 'gone' })).token;
    await alice.token.revoke('gone');
    const fenced = (await alice.token.create({ name: 'fenced', allowedIps: ['192.0.2.0/24'] })).token;
    const bound = (await alice.token.create({ name: 'bound', bindKey: (await newKey()).publicJwk })).token;
    const parent = fast.auth.client(await fast.auth.authenticate(wide));
    const child = (await parent.token.create({ name: 'child', scopes: [{ resource: 'acme', permissions: ['repo:read'] }] })).token;
    const component = await fast.auth.issueComponentToken('bob', { scopes: [{ resource: 'other/site', permissions: ['repo:read'] }] });
    // A service account's tokens: its roles are read beside the chain; a disabled account's and a revoked one's refused.
    const acme = alice.org('acme');
    await acme.serviceAccounts.create({ name: 'ci-bot', role: 'editor' });
    await acme.serviceAccounts.create({ name: 'off-bot', role: 'viewer' });
    const bot = (await acme.serviceAccount('ci-bot').token.create({ name: 'deploy' })).token;
    const botGone = (await acme.serviceAccount('ci-bot').token.create({ name: 'gone' })).token;
    await acme.serviceAccount('ci-bot').token.revoke('gone');
    const off = (await acme.serviceAccount('off-bot').token.create({ name: 'x' })).token;
    await acme.serviceAccounts.update('off-bot', { disabled: true });
    for (const t of [read, wide, revoked, fenced, bound, child, component, bob, bot, botGone, off])
      headers.push(`Bearer ${t}`, `bearer  ${t}`);
    headers.push(
      '',
      'Bearer ',
      'Basic YWxpY2U6cHc=',
      `Bearer ${read}x`,
      `Bearer ${read} ${wide}`,
      `DPoP ${bound}`,
      `Bearer ${'a'.repeat(9000)}`,
    );
  });

  it('invariant: the same principal and decisions, or the same refusal, for any header (fast-check)', async () => {
    const nowOf = (s: TestAuth) => internalsOf(s.auth)?.authenticateRequestNow;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: headers.length - 1 }), async (i) => {
        const header = headers[i] as string;
        const req = new Request('https://svc.test/api', { headers: header === '' ? {} : { authorization: header } });
        const run = async (s: TestAuth): Promise<Outcome> => {
          try {
            return outcome(s, await (nowOf(s) as NonNullable<ReturnType<typeof nowOf>>)(req, '198.51.100.7'));
          } catch (err) {
            return refusal(err);
          }
        };
        const [a, b] = [await run(fast), await run(slow)];
        expect(a).toEqual(b);
        // And authenticateRequest (the promise every caller holds) agrees with both.
        const c = await fast.auth.authenticateRequest(req, { address: '198.51.100.7' }).then(
          (p) => outcome(fast, p),
          (err: unknown) => refusal(err),
        );
        expect(c).toEqual(a);
      }),
      { numRuns: 200 },
    );
  });

  it('a hot token on the memory store is answered at once (no promise); over the waiting store, with one', async () => {
    const req = new Request('https://svc.test/api', { headers: { authorization: headers[0] as string } });
    const now = internalsOf(fast.auth)?.authenticateRequestNow;
    await fast.auth.authenticateRequest(req); // its signature verified once, as on any server's second request
    const got = now?.(req, undefined);
    expect(got).not.toBeInstanceOf(Promise);
    expect(got).toMatchObject({ userId: 'alice', tokenName: 'read' });
    const waited = internalsOf(slow.auth)?.authenticateRequestNow(req, undefined);
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toMatchObject({ userId: 'alice', tokenName: 'read' });
  });

  it('a refusal met before any wait is thrown at once, and reported once', async () => {
    await fast.auth.flush();
    const before = fast.events.filter((e) => e.type === 'auth.failed').length;
    const now = internalsOf(fast.auth)?.authenticateRequestNow;
    expect(() => now?.(new Request('https://svc.test/api', { headers: { authorization: 'Basic x' } }), undefined)).toThrow(
      expect.objectContaining({ reason: 'malformed' }),
    );
    await fast.auth.flush();
    expect(fast.events.filter((e) => e.type === 'auth.failed').length).toBe(before + 1);
  });
});
