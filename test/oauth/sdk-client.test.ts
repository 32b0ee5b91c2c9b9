/**
 * The MCP SDK's own OAuth client (`auth()` with an OAuthClientProvider) against
 * the dev server: discovery from /mcp's protected resource metadata, dynamic
 * registration, PKCE, the pages (driven by a cookie-keeping fetch), the code
 * exchange with the resource indicator, and a refresh.
 */
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REDIRECT, signInAndConsent, Browser, codeFlow } from '../support/oauth';
import { startDevServer, type DevServer } from '../support/dev-server';

class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  lastAuthorizationUrl: URL | undefined;
  constructor(readonly base: string) {}
  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return 'sdk-state';
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.lastAuthorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

describe('the MCP SDK OAuth client against svc serve', () => {
  let dev: DevServer;
  let base: string;
  beforeAll(async () => {
    dev = await startDevServer();
    ({ base } = dev);
  });
  afterAll(() => dev.close());

  it('discovers, registers, authorizes with PKCE and the resource, exchanges the code and refreshes', async () => {
    const provider = new MemoryProvider(base);
    expect(await auth(provider, { serverUrl: `${base}/mcp`, scope: 'repo:read' })).toBe('REDIRECT');
    expect(provider.info?.client_id).toBeTruthy();
    const at = provider.lastAuthorizationUrl as URL;
    expect(at.origin + at.pathname).toBe(`${base}/oauth/authorize`);
    expect(at.searchParams.get('code_challenge_method')).toBe('S256');
    expect(at.searchParams.get('resource')).toBe(`${base}/mcp`);
    const { url: back } = await signInAndConsent(new Browser(), base, at.href);
    const code = new URL(back).searchParams.get('code') as string;
    expect(new URL(back).searchParams.get('state')).toBe('sdk-state');
    expect(await auth(provider, { serverUrl: `${base}/mcp`, authorizationCode: code })).toBe('AUTHORIZED');
    const first = provider.saved as OAuthTokens;
    expect(decodeJwt(first.access_token)).toMatchObject({ iss: base, aud: `${base}/mcp`, sub: 'alice', scope: 'repo:read' });
    // With a refresh token saved, auth() refreshes: a new access token and a rotated refresh token.
    expect(await auth(provider, { serverUrl: `${base}/mcp` })).toBe('AUTHORIZED');
    const second = provider.saved as OAuthTokens;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(second.access_token).jti).not.toBe(decodeJwt(first.access_token).jti);
  });
});

describe('svc serve accepts its own tokens, each at its own resource only', () => {
  let dev: DevServer;
  let base: string;
  beforeAll(async () => {
    dev = await startDevServer();
    ({ base } = dev);
  });
  afterAll(() => dev.close());

  it('the MCP SDK client lists and calls tools with its OAuth token; the scope narrows what it may call, not what it sees', async () => {
    const provider = new MemoryProvider(base);
    expect(await auth(provider, { serverUrl: `${base}/mcp`, scope: 'repo:read' })).toBe('REDIRECT');
    const { url: back } = await signInAndConsent(new Browser(), base, (provider.lastAuthorizationUrl as URL).href);
    expect(await auth(provider, { serverUrl: `${base}/mcp`, authorizationCode: new URL(back).searchParams.get('code') as string })).toBe(
      'AUTHORIZED',
    );
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    // alice is an editor and the token was approved for repo:read only: thing_put is listed (her role allows it),
    // so that calling it meets the 403 step-up challenge (sdk-challenge.test.ts) instead of never being made.
    expect(tools).toEqual(['repo_head', 'thing_get', 'thing_put', 'whoami']);
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    expect(who.structuredContent).toMatchObject({ kind: 'session', user: 'alice' });
    // Revoking the refresh token (RFC 7009) ends the grant: the access token fails on its next request.
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: provider.saved?.refresh_token as string,
        client_id: provider.info?.client_id as string,
      }).toString(),
    });
    expect(revoked.status).toBe(200);
    const after = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${provider.saved?.access_token as string}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await client.close();
  });

  it('token passthrough across resources: a token for <base>/mcp is refused at /api, and one for <base> at /mcp', async () => {
    const mcp = await codeFlow(base, { resource: `${base}/mcp` });
    const api = await codeFlow(base, { resource: `${base}/` });
    const call = (path: string, token: string, init: RequestInit = {}): Promise<Response> =>
      fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
    const mcpToken = mcp.tokens.access_token as string;
    const apiToken = api.tokens.access_token as string;
    expect((await call('/api/whoami', apiToken)).status).toBe(200);
    const refused = await call('/api/whoami', mcpToken);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ reason: 'audience' });
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    };
    expect((await call('/mcp', mcpToken, init)).status).toBe(200);
    expect((await call('/mcp', apiToken, init)).status).toBe(401);
  });
});
