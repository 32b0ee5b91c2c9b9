/**
 * The official MCP SDK client (1.32: `Client`, `StreamableHTTPClientTransport`
 * with an `OAuthClientProvider`) against a real `svc serve` process on
 * loopback, a person signing in and consenting in Debian's chromium
 * (playwright-core): discovery from the 401 (which asks for repo:read first),
 * dynamic registration, PKCE, the code from the redirect, tools/list (every
 * tool the role allows) and a call, a refresh, revocation, and the scope
 * step-up after the 403 challenge, the way docs/mcp.md tells a 1.x client to
 * do it. Screenshots go to test-artifacts/.
 */
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithChromium } from '../support/chromium';
import { BrowserProvider, recordingFetch, scopeOf, stage, type Seen, type Stage } from './sdk-person';

describeWithChromium('the MCP SDK client')('the MCP SDK client against svc serve, a person in chromium', () => {
  let st: Stage;
  beforeAll(async () => {
    st = await stage();
  });
  afterAll(async () => {
    await st?.close();
  });

  it('discovery from the 401 (repo:read first), DCR, PKCE, consent in the browser, every tool the role allows, a call, a refresh, then revocation', async () => {
    const mcp = new URL(`${st.url}/mcp`);
    const seen: Seen[] = [];
    const provider = new BrowserProvider(st.person, st.callback, 'sdk-flow');
    const opts = { authProvider: provider, fetch: recordingFetch(seen) };
    let transport = new StreamableHTTPClientTransport(mcp, opts);
    // No token yet: the 401 names the metadata and the first scope; the SDK registers and sends the person to consent.
    await expect(new Client({ name: 'sdk', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(seen[0]).toEqual({
      status: 401,
      challenge: `Bearer realm="svc", resource_metadata="${st.url}/.well-known/oauth-protected-resource/mcp", scope="repo:read"`,
    });
    const asked = provider.urls[0] as URL;
    expect(asked.origin + asked.pathname).toBe(`${st.url}/oauth/authorize`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(`${st.url}/mcp`);
    expect(asked.searchParams.get('scope')).toBe('repo:read');
    expect(provider.info?.client_id).toBeTruthy();
    expect(provider.consentText).toContain('MCP SDK step-up client');
    expect(provider.consentText).toContain(new URL(st.callback).host);
    await transport.finishAuth(provider.code as string);
    expect(decodeJwt(provider.saved?.access_token as string)).toMatchObject({ aud: `${st.url}/mcp`, sub: 'alice', scope: 'repo:read' });

    transport = new StreamableHTTPClientTransport(mcp, opts);
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(transport);
    // A read-only grant still lists the write tool alice's role allows: the model can call it and meet the challenge.
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['repo_head', 'thing_get', 'thing_put', 'whoami']);
    const head = await client.callTool({ name: 'repo_head', arguments: { org: 'acme', repo: 'web' } });
    expect(head.structuredContent).toMatchObject({ org: 'acme', repo: 'web' });

    // Refresh: the saved access token stops being accepted (as an expired one does); on the 401 the SDK refreshes and retries.
    const before = provider.saved as OAuthTokens;
    provider.saved = { ...before, access_token: `${before.access_token.slice(0, -4)}AAAA` };
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    expect(who.structuredContent).toMatchObject({ kind: 'session', user: 'alice' });
    expect(seen.at(-2)?.status).toBe(401);
    expect(provider.saved?.refresh_token).not.toBe(before.refresh_token);
    expect(decodeJwt(provider.saved?.access_token as string).jti).not.toBe(decodeJwt(before.access_token).jti);

    // Revocation (RFC 7009) of the refresh token ends the grant: the next request is a 401, and the refresh fails too.
    const revoked = await fetch(`${st.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: provider.saved?.refresh_token as string, client_id: provider.info?.client_id as string }),
    });
    expect(revoked.status).toBe(200);
    provider.interactive = false;
    // The SDK's refresh on that 401 is refused too (invalid_grant): it drops the tokens and the person must sign in again.
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.invalidated).toContain('tokens');
    expect(provider.saved).toBeUndefined();
    expect(provider.urls).toHaveLength(2);
    expect(seen.at(-1)?.status).toBe(401);
    expect(seen.at(-1)?.challenge).toMatch(/error="invalid_token"/);
    await client.close();
  });

  it('step-up: signed in for repo:read by default, a write is the 403 challenge, the tokens are dropped, the person allows repo:write, the write succeeds', async () => {
    const mcp = new URL(`${st.url}/mcp`);
    const seen: Seen[] = [];
    const provider = new BrowserProvider(st.person, st.callback, 'sdk-step-up');
    const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider, fetch: recordingFetch(seen) });
    // The first sign-in asks what the 401 names, repo:read, and the person approves it.
    await expect(new Client({ name: 'sdk', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(provider.code as string);
    expect(scopeOf(provider.saved)).toBe('repo:read');
    expect(provider.consentText).not.toContain('Write things in repositories');
    const connected = new StreamableHTTPClientTransport(mcp, { authProvider: provider, fetch: recordingFetch(seen) });
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(connected);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('thing_put');

    const write = { name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/step-up', content: 'more' } };
    // SDK 1.32 answers the challenge with auth(), which refreshes (same scope) and retries once: the 403 again
    // (typescript-sdk#2255). Nothing more happens without the person, which is the point: no consent loop.
    provider.interactive = false;
    const refused = await client.callTool(write).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(403);
    const challenge = seen.find((s) => s.status === 403)?.challenge ?? '';
    // Granted plus what this call needs (H3), nothing more.
    expect(challenge).toBe(
      `Bearer realm="svc", error="insufficient_scope", scope="repo:read repo:write", ` +
        `resource_metadata="${st.url}/.well-known/oauth-protected-resource/mcp", ` +
        'error_description="this token was not granted repo:write: sign in again and allow it"',
    );

    // As docs/mcp.md says for 1.x: drop the tokens (invalidateCredentials('tokens')), authorize with the challenge's scope.
    const scope = /scope="([^"]+)"/.exec(challenge)?.[1] as string;
    await provider.invalidateCredentials('tokens');
    provider.interactive = true;
    expect(await auth(provider, { serverUrl: mcp, scope })).toBe('REDIRECT');
    expect(provider.urls.at(-1)?.searchParams.get('scope')).toBe('repo:read repo:write');
    expect(provider.consentText).toContain('Write things in repositories');
    await connected.finishAuth(provider.code as string);
    expect(scopeOf(provider.saved)).toBe('repo:read repo:write');
    const done = await client.callTool(write);
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ committer: 'svc:default/users/Identity/alice' });
    expect(provider.invalidated).toEqual(['tokens']);
    await client.close();
  });
});
