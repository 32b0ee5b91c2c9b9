/**
 * The MCP SDK's 2.x client (`@modelcontextprotocol/client` 2.4: `Client`,
 * `StreamableHTTPClientTransport` with an `OAuthClientProvider`), as hosts
 * ship it, against a real `svc serve` on loopback and a person in Debian's
 * chromium: discovery from the 401, registration, PKCE, consent for repo:read
 * (the first scope), tools/list (every tool the role allows) and calls, then
 * the step-up the 2.x transport does by itself on the 403 (SEP-2350: the union
 * of what it holds and what the call needs, a fresh consent), and the write.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithChromium } from '../support/chromium';
import { BrowserProvider, recordingFetch, scopeOf, stage, type Seen, type Stage } from './sdk-person';

describeWithChromium('the MCP SDK 2.x client')('the MCP SDK 2.x client against svc serve, a person in chromium', () => {
  let st: Stage;
  beforeAll(async () => {
    st = await stage();
  });
  afterAll(async () => {
    await st?.close();
  });

  it('signs in for repo:read, lists every tool the role allows, calls one, then steps up for a write by itself', async () => {
    const mcp = new URL(`${st.url}/mcp`);
    const seen: Seen[] = [];
    const provider = new BrowserProvider(st.person, st.callback, 'sdk2');
    const authProvider = provider as unknown as OAuthClientProvider;
    const first = new StreamableHTTPClientTransport(mcp, { authProvider, fetch: recordingFetch(seen) });
    await expect(new Client({ name: 'sdk2', version: '2' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(seen[0]).toEqual({
      status: 401,
      challenge: `Bearer realm="svc", resource_metadata="${st.url}/.well-known/oauth-protected-resource/mcp", scope="repo:read"`,
    });
    const asked = provider.urls[0] as URL;
    expect(asked.origin + asked.pathname).toBe(`${st.url}/oauth/authorize`);
    expect(asked.searchParams.get('scope')).toBe('repo:read');
    expect(asked.searchParams.get('resource')).toBe(`${st.url}/mcp`);
    expect(provider.consentText).toContain('MCP SDK step-up client');
    await first.finishAuth(provider.params as URLSearchParams);
    expect(decodeJwt(provider.saved?.access_token as string)).toMatchObject({ aud: `${st.url}/mcp`, sub: 'alice', scope: 'repo:read' });

    const transport = new StreamableHTTPClientTransport(mcp, { authProvider, fetch: recordingFetch(seen) });
    const client = new Client({ name: 'sdk2', version: '2' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['repo_head', 'thing_get', 'thing_put', 'whoami']);
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    expect(who.structuredContent).toMatchObject({ kind: 'session', user: 'alice' });

    // The write: 403 granted plus needed; the 2.x transport forces a fresh consent (a refresh cannot widen scope).
    const write = { name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/sdk2', content: 'two' } };
    await expect(client.callTool(write)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(seen.find((s) => s.status === 403)?.challenge).toMatch(
      /^Bearer realm="svc", error="insufficient_scope", scope="repo:read repo:write", /,
    );
    expect(provider.urls).toHaveLength(2);
    expect(provider.urls[1]?.searchParams.get('scope')).toBe('repo:read repo:write');
    expect(provider.consentText).toContain('Write things in repositories');
    await transport.finishAuth(provider.params as URLSearchParams);
    expect(scopeOf(provider.saved)).toBe('repo:read repo:write');
    const done = await client.callTool(write);
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ committer: 'svc:default/users/Identity/alice' });
    await client.close();
  });
});
