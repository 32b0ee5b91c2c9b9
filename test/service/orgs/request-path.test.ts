/**
 * What org policies cost the request path (issue 30): one `readPolicies` per
 * PAT request (answered without a promise by the memory store), none for a
 * session or a component token, nothing at all for a store that keeps no
 * policies; a policy change by another instance holds on the next request.
 */
import { describe, expect, it } from 'vitest';
import { MemoryTokenStore, type TokenStore } from '../../../src/stores';
import { testAuth } from '../../support/auth';
import { Clock } from '../../support/clock';

const ROLES = { alice: { orgs: { acme: 'owner' as const } }, bob: { orgs: { acme: 'editor' as const } } };

function counted(store: MemoryTokenStore): { store: TokenStore; calls: () => number; promises: () => number } {
  const read = ((store as TokenStore).readPolicies as NonNullable<TokenStore['readPolicies']>).bind(store);
  let calls = 0;
  let promises = 0;
  (store as TokenStore).readPolicies = () => {
    calls++;
    const got = read();
    if (got instanceof Promise) promises++;
    return got;
  };
  return { store, calls: () => calls, promises: () => promises };
}

describe('org policies on the request path', () => {
  it('one synchronous readPolicies per PAT request, none for a session or a component token', async () => {
    const c = counted(new MemoryTokenStore());
    const { auth } = await testAuth({ roles: ROLES, tokens: c.store });
    const bob = await auth.authenticate(await auth.issueSession('bob'));
    const component = await auth.issueComponentToken('bob');
    const { token } = await auth.client(bob).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const before = c.calls();
    await auth.authenticate(token);
    expect(c.calls() - before).toBe(1);
    const mid = c.calls();
    await auth.authenticate(await auth.issueSession('bob'));
    await auth.authenticate(component);
    expect(c.calls()).toBe(mid);
    expect(c.promises()).toBe(0);
  });

  it('a policy set through another instance on the same store holds on the next request, and lifting it too', async () => {
    const store = new MemoryTokenStore();
    const clock = new Clock();
    const a = (await testAuth({ roles: ROLES, tokens: store, clock })).auth;
    const b = (await testAuth({ roles: ROLES, tokens: store, clock })).auth;
    const bob = await a.authenticate(await a.issueSession('bob'));
    const { token } = await a.client(bob).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    expect(a.authorize(await a.authenticate(token), 'acme/web', 'repo:read')).toEqual({ allowed: true });
    const alice = await b.authenticate(await b.issueSession('alice'));
    await b.client(alice).org('acme').policy.set({ requireApproval: true });
    expect(a.authorize(await a.authenticate(token), 'acme/web', 'repo:read')).toMatchObject({ allowed: false, reason: 'policy' });
    await b.client(alice).org('acme').policy.set({ requireApproval: false });
    expect(a.authorize(await a.authenticate(token), 'acme/web', 'repo:read')).toEqual({ allowed: true });
  });
});
