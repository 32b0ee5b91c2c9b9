/**
 * Attack: an access token issued by this service's own authorization server
 * (svc-auth/oauth, a recorded trusted issuer) was `foreign` to
 * `reportLeaked`: posted to the revocation endpoint it answered 202 and kept
 * working, refresh token included. A recorded issuer's tokens are ours: a
 * leaked one ends its grant (the grant's record and every access token under
 * it), whatever resource it was minted for, and the server refuses the
 * grant's refresh token from then on. A real authorization server on
 * loopback (test/oauth/support.ts), and the real `svc serve` process, with
 * real code flows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustedIssuerFor } from '../../src/entries/oauth';
import { credentialRevocationHandler } from '../../src/leaks';
import { createAuth, type Auth, type AuthEvent } from '../../src/service';
import { generateKeyRing } from '../../src/tokens';
import { systemTime, testAuth } from '../support/auth';
import { exited, serve, svc, tempHome } from '../cli/helpers';
import { codeFlow, startServer, token, type Running } from '../support/oauth';

type TokenLeakedEvent = Extract<AuthEvent, { type: 'token.leaked' }>;

const members = { rolesOf: (u: string) => (u === 'alice' ? { orgs: { acme: 'owner' as const } } : {}) };

describe('leaked access tokens of our own authorization server', () => {
  let s: Running;
  /** `/api`'s Auth: trusts the server for the base URL only. */
  let api: Auth;
  /** `/mcp`'s Auth: trusts it for `<base>/mcp`, the resource the tokens below are minted for. */
  let mcp: Auth;
  const events: AuthEvent[] = [];
  beforeAll(async () => {
    s = await startServer();
    const shared = { issuer: 'svc-rs', members, tokens: s.tokens, now: systemTime };
    ({ auth: api } = await testAuth({
      ...shared,
      trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: s.base })],
      onEvent: (e) => void events.push(e),
    }));
    ({ auth: mcp } = await testAuth({ ...shared, trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: `${s.base}/mcp` })] }));
  });
  afterAll(() => s.close());

  it('reportLeaked ends the grant of a token minted for another resource: its access tokens and its refresh token stop working', async () => {
    const { tokens, clientId } = await codeFlow(s.base);
    const leaked = tokens.access_token as string;
    // A second access token of the same grant, by refresh: it ends with the grant too.
    const refreshed = await token(s.base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: clientId,
    });
    const sibling = refreshed.body.access_token as string;
    await expect(mcp.authenticate(leaked)).resolves.toMatchObject({ userId: 'alice' });
    await expect(mcp.authenticate(sibling)).resolves.toMatchObject({ userId: 'alice' });

    const report = await api.reportLeaked([leaked], { source: 'support' });
    expect(report).toMatchObject({ received: 1, revoked: 1, outcomes: ['revoked'] });

    await expect(mcp.authenticate(leaked)).rejects.toMatchObject({ reason: 'revoked' });
    await expect(mcp.authenticate(sibling)).rejects.toMatchObject({ reason: 'revoked' });
    const refresh = await token(s.base, {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    expect(refresh.body.access_token).toBeUndefined();

    await api.flush();
    const leakedEvents = events.filter((e): e is TokenLeakedEvent => e.type === 'token.leaked');
    expect(leakedEvents).toHaveLength(1);
    const [event] = leakedEvents;
    expect(event?.token).toMatchObject({ id: report.revokedIds[0], kind: 'session', ownerId: 'alice', parentId: null });
    expect(event?.token.name).toMatch(/^oauth-/);
    // The grant, then its access tokens.
    expect(event?.revokedIds.length).toBe(3);
    expect(event?.revokedIds[0]).toBe(report.revokedIds[0]);

    // Reported again: ours, nothing left to end.
    expect((await api.reportLeaked([leaked, sibling], { source: 'support' })).outcomes).toEqual(['inactive', 'inactive']);
  });

  it('the revocation endpoint: 202 as for anything else, and the token is dead; a non-recorded issuer’s token stays foreign', async () => {
    const { tokens } = await codeFlow(s.base, { resource: s.base });
    const leaked = tokens.access_token as string;
    await expect(api.authenticate(leaked)).resolves.toMatchObject({ userId: 'alice' });
    const handler = credentialRevocationHandler(api);
    const res = await handler.fetch(
      new Request('http://svc.test/api/credentials/revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ credentials: [leaked] }),
      }),
      { clientAddress: '203.0.113.7' },
    );
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: 'accepted' });
    await expect(api.authenticate(leaked)).rejects.toMatchObject({ reason: 'revoked' });

    // The same server trusted without `recorded` (as a company's identity provider would be): not ours to end.
    const other = createAuth({
      issuer: 'svc-rs',
      keys: await generateKeyRing(),
      members,
      tokens: s.tokens,
      trustedIssuers: [{ ...trustedIssuerFor({ issuer: s.base, resource: `${s.base}/mcp` }), recorded: false }],
    });
    const fresh = (await codeFlow(s.base)).tokens.access_token as string;
    expect((await other.reportLeaked([fresh], { source: 'support' })).outcomes).toEqual(['foreign']);
    await expect(mcp.authenticate(fresh)).resolves.toMatchObject({ userId: 'alice' });
  });

  it('forged: a token claiming our issuer but signed by another key is foreign and ends nothing', async () => {
    const { tokens } = await codeFlow(s.base);
    const real = tokens.access_token as string;
    const [header, payload] = real.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    expect((await api.reportLeaked([forged], { source: 'support' })).outcomes).toEqual(['foreign']);
    await expect(mcp.authenticate(real)).resolves.toMatchObject({ userId: 'alice' });
  });
});

describe('svc serve: a leaked token of its own authorization server posted to /api/credentials/revoke', { timeout: 120_000 }, () => {
  it('202, then /mcp refuses the token and the server refuses the grant’s refresh token', async () => {
    const { home, cleanup } = await tempHome();
    try {
      expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
      const running = await serve(home);
      try {
        const base = running.url;
        const { tokens, clientId } = await codeFlow(base);
        const leaked = tokens.access_token as string;
        const mcp = (): Promise<Response> =>
          fetch(`${base}/mcp`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${leaked}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
          });
        expect((await mcp()).status).not.toBe(401);
        const res = await fetch(`${base}/api/credentials/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ credentials: [leaked] }),
        });
        expect(res.status).toBe(202);
        expect(await res.json()).toEqual({ status: 'accepted' });
        expect((await mcp()).status).toBe(401);
        const refresh = await token(base, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token as string,
          client_id: clientId,
        });
        expect(refresh.body.error).toBe('invalid_grant');
        expect(running.stderr()).not.toContain(leaked);
      } finally {
        running.child.kill('SIGTERM');
        await exited(running.child);
      }
    } finally {
      await cleanup();
    }
  });
});
