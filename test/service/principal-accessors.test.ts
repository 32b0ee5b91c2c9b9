/**
 * Issue 19, step 3: what a principal carries is read through its owners' accessors
 * (`principalScopes` of the service, `isPrincipal` of the policy), never through their slots,
 * and only a principal some `auth.authenticate` returned answers: a copy, a JSON round trip,
 * a Proxy or a look-alike never does.
 */
import { describe, expect, it } from 'vitest';
import { isPrincipal } from '../../src/core/policy';
import { principalScopes } from '../../src/service';
import { testAuth } from '../support/auth';

describe('principal accessors from the owner of the slots', () => {
  it('principalScopes: a PAT shows its own scopes; an unscoped child its parent scopes; a session and an unscoped PAT null', async () => {
    const { auth } = await testAuth();
    const session = await auth.authenticate(await auth.issueSession('alice'));
    expect(principalScopes(session)).toBeNull();
    const api = auth.client(session).token;
    const reader = await api.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const readerP = await auth.authenticate(reader.token);
    expect(principalScopes(readerP)).toEqual([{ resource: 'acme/web', permissions: ['repo:read'] }]);
    const child = await auth.client(readerP).token.create({ name: 'child' });
    expect(principalScopes(await auth.authenticate(child.token))).toEqual([{ resource: 'acme/web', permissions: ['repo:read'] }]);
    const full = await api.create({ name: 'full' });
    expect(principalScopes(await auth.authenticate(full.token))).toBeNull();
  });

  it('forged principal attack: copies, JSON, Proxies and look-alikes are no principal and show no scopes', async () => {
    const { auth } = await testAuth();
    const p = await auth.authenticate(await auth.issueSession('alice'));
    expect(isPrincipal(p)).toBe(true);
    const trap = (): never => {
      throw new Error('trap');
    };
    const forged: unknown[] = [
      { ...p },
      JSON.parse(JSON.stringify(p)),
      structuredClone({ ...p }),
      Object.create(Object.getPrototypeOf(p) as object),
      new Proxy(p, {}),
      new Proxy({}, { get: trap, has: trap, getPrototypeOf: trap }),
      { kind: 'session', userId: 'alice', expiresAt: new Date() },
      null,
      'alice',
    ];
    for (const f of forged) {
      expect(isPrincipal(f)).toBe(false);
      expect(principalScopes(f)).toBeUndefined();
    }
  });
});
