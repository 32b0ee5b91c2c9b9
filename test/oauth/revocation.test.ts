/**
 * Access tokens are JWTs the server does not store: they end with their grant
 * through session records (a record per grant, a child record per access
 * token, read on every request by the recorded trusted issuer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Auth } from '../../src/service';
import { systemTime, testAuth } from '../support/auth';
import { trustedIssuerFor } from '../../src/entries/oauth';
import { approve, authorize, Browser, codeFlow, redeem, register, type Running, startServer, token } from '../support/oauth';

describe('revoking a grant ends its access tokens on their next request', () => {
  let s: Running;
  let mcp: Auth;
  beforeAll(async () => {
    s = await startServer();
    ({ auth: mcp } = await testAuth({
      issuer: 'svc-rs',
      roles: { alice: { orgs: { acme: 'owner' } } },
      tokens: s.tokens,
      now: systemTime,
      trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: `${s.base}/mcp` })],
    }));
  });
  afterAll(() => s.close());

  const revoke = (clientId: string, value: string): Promise<Response> =>
    fetch(`${s.base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: value, client_id: clientId }).toString(),
    });

  it('revoking the refresh token (RFC 7009): the access tokens of that grant fail with reason revoked', async () => {
    const { tokens, clientId } = await codeFlow(s.base);
    const first = tokens.access_token as string;
    const refreshed = await token(s.base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: clientId,
    });
    const second = refreshed.body.access_token as string;
    await expect(mcp.authenticate(first)).resolves.toMatchObject({ userId: 'alice' });
    await expect(mcp.authenticate(second)).resolves.toMatchObject({ userId: 'alice' });
    expect((await revoke(clientId, refreshed.body.refresh_token as string)).status).toBe(200);
    await expect(mcp.authenticate(first)).rejects.toMatchObject({ reason: 'revoked' });
    await expect(mcp.authenticate(second)).rejects.toMatchObject({ reason: 'revoked' });
  });

  it('refresh token replay: the replay ends the grant, and its access tokens with it', async () => {
    const { tokens, clientId } = await codeFlow(s.base);
    await token(s.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
    const replay = await token(s.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
    expect(replay.body.error).toBe('invalid_grant');
    await expect(mcp.authenticate(tokens.access_token as string)).rejects.toMatchObject({ reason: 'revoked' });
  });

  it('code replay: the second redemption ends the grant, and the access token of the first fails', async () => {
    const client = await register(s.base);
    const request = authorize(s.base, client.client_id);
    const { code } = await approve(request);
    const first = await redeem(request, code as string);
    await expect(mcp.authenticate(first.body.access_token as string)).resolves.toBeDefined();
    expect((await redeem(request, code as string)).body.error).toBe('invalid_grant');
    await expect(mcp.authenticate(first.body.access_token as string)).rejects.toMatchObject({ reason: 'revoked' });
  });

  it('the user sees the grant among their sessions (once, not one entry per access token) and ends it: tokens and refresh fail, the next sign-in asks again', async () => {
    const browser = new Browser();
    const { tokens, clientId } = await codeFlow(s.base, { browser });
    await token(s.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const grants = (await s.auth.client(me).sessions.list()).filter(
      // By the description, which quotes the client id whole: the name drops a random id's leading or trailing '-'.
      (x) => x.name.startsWith('oauth-') && x.description?.includes(`client ${clientId},`) === true && x.status === 'active',
    );
    expect(grants.length).toBeGreaterThanOrEqual(1);
    const mine = grants.at(-1);
    // Told apart by what the server knows, not by the client's chosen name alone.
    expect(mine?.description).toBe(`OAuth grant to "Test Client" (name given by the app), client ${clientId}, 127.0.0.1:9: repo:read`);
    await s.auth.client(me).sessions.revoke(mine?.id as string);
    await expect(mcp.authenticate(tokens.access_token as string)).rejects.toMatchObject({ reason: 'revoked' });
    // The ended grant's refresh token no longer mints access tokens ...
    const after = await token(s.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
    expect(after.status).toBe(400);
    // ... and the same browser and client are asked to consent again (not waved through), then get a working token.
    const request = authorize(s.base, clientId);
    const { code, consentHtml } = await approve(request, { browser });
    expect(consentHtml).toContain('Allow Test Client?');
    const fresh = await redeem(request, code as string);
    await expect(mcp.authenticate(fresh.body.access_token as string)).resolves.toMatchObject({ userId: 'alice' });
  });

  it('a grant the person ended is never reused silently: the very next sign-in of that client asks again', async () => {
    const browser = new Browser();
    const { clientId } = await codeFlow(s.base, { browser });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const grant = (await s.auth.client(me).sessions.list())
      .filter((x) => x.description?.includes(`client ${clientId},`) === true && x.status === 'active')
      .at(-1);
    await s.auth.client(me).sessions.revoke(grant?.id as string);
    const request = authorize(s.base, clientId);
    const { code, consentHtml } = await approve(request, { browser });
    expect(consentHtml).toContain('Allow Test Client?');
    const r = await redeem(request, code as string);
    await expect(mcp.authenticate(r.body.access_token as string)).resolves.toMatchObject({ userId: 'alice' });
  });

  it('auth.revokeToken(grant id), server-side, ends the grant’s tokens too', async () => {
    const { tokens } = await codeFlow(s.base);
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const newest = (await s.auth.client(me).sessions.list()).filter((x) => x.name.startsWith('oauth-') && x.status === 'active').at(-1);
    await s.auth.revokeToken(newest?.id as string);
    await expect(mcp.authenticate(tokens.access_token as string)).rejects.toMatchObject({ reason: 'revoked' });
  });
});
