/**
 * The official MCP SDK client (1.32: `Client`, `StreamableHTTPClientTransport`
 * with an `OAuthClientProvider`) against a real `svc serve` process on
 * loopback, a person signing in and consenting in Debian's chromium
 * (playwright-core): discovery from the 401, dynamic registration, PKCE, the
 * code from the redirect, tools/list and a call, a refresh, revocation, and a
 * scope step-up after the 403 challenge. Screenshots go to test-artifacts/.
 */
import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { auth, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { chromium, type Browser as Chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exited, serve, svc, tempHome } from '../cli/helpers';
import { CHROMIUM, CHROMIUM_FLAGS, describeWithChromium } from '../support/chromium';
import { listen } from './support';

const ARTIFACTS = join(process.cwd(), 'test-artifacts');

/** A person at the browser: signs in as alice when asked, approves, and the app's callback receives the code. */
class Person {
  constructor(
    private readonly context: BrowserContext,
    private readonly callback: { base: string; seen: URLSearchParams[] },
  ) {}

  /** Open `url`, sign in when the page asks, approve; the code the redirect carried. Screenshots named `<shot>-*.png`. */
  async approve(url: URL, shot: string): Promise<{ code: string; consentText: string }> {
    const page = await this.context.newPage();
    try {
      await page.goto(url.href);
      if ((await page.locator('select#user').count()) > 0) {
        await page.screenshot({ path: join(ARTIFACTS, `${shot}-sign-in.png`), fullPage: true });
        await page.selectOption('select#user', 'alice');
        await page.click('button[type=submit]');
      }
      const consentText = await page.locator('main').innerText();
      await page.screenshot({ path: join(ARTIFACTS, `${shot}-consent.png`), fullPage: true });
      await page.click('button[value=approve]');
      await page.waitForURL(`${this.callback.base}/**`);
      const back = this.callback.seen.at(-1) as URLSearchParams;
      expect(back.get('state')).toBe('sdk-state');
      return { code: back.get('code') as string, consentText };
    } finally {
      await page.close();
    }
  }
}

/** An OAuthClientProvider kept in memory; `redirectToAuthorization` sends the person to the URL when `interactive`. */
class BrowserProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  interactive = true;
  code: string | undefined;
  consentText = '';
  urls: URL[] = [];
  constructor(
    private readonly person: Person,
    private readonly redirect: string,
    private readonly shot: string,
  ) {}
  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK step-up client',
      redirect_uris: [this.redirect],
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
  async redirectToAuthorization(url: URL): Promise<void> {
    this.urls.push(url);
    if (!this.interactive) return;
    const { code, consentText } = await this.person.approve(url, `${this.shot}-${this.urls.length}`);
    this.code = code;
    this.consentText = consentText;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** fetch that remembers the status and challenge of every /mcp answer. */
function recordingFetch(seen: { status: number; challenge: string | null }[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (new URL(input instanceof Request ? input.url : String(input)).pathname === '/mcp')
      seen.push({ status: res.status, challenge: res.headers.get('www-authenticate') });
    return res;
  };
}

const scopeOf = (t: OAuthTokens | undefined): unknown => decodeJwt(t?.access_token as string)['scope'];

describeWithChromium('the MCP SDK client')('the MCP SDK client against svc serve, a person in chromium', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  let running: Awaited<ReturnType<typeof serve>>;
  let browser: Chromium;
  let context: BrowserContext;
  let callback: { base: string; seen: URLSearchParams[]; close(): void };
  let person: Person;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
    running = await serve(home);
    const seen: URLSearchParams[] = [];
    const cb = await listen((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/callback') seen.push(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>back in the app</title><p>done</p>');
    });
    callback = { base: cb.base, seen, close: () => void cb.server.close() };
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS] });
    context = await browser.newContext({ viewport: { width: 720, height: 860 } });
    person = new Person(context, callback);
  });
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    running?.child.kill('SIGTERM');
    if (running) await exited(running.child);
    await cleanup?.();
  });

  it('discovery from the 401, DCR, PKCE, consent in the browser, tools, a call, a refresh, then revocation (next request 401)', async () => {
    const mcp = new URL(`${running.url}/mcp`);
    const seen: { status: number; challenge: string | null }[] = [];
    const provider = new BrowserProvider(person, `${callback.base}/callback`, 'sdk-flow');
    const opts = { authProvider: provider, fetch: recordingFetch(seen) };
    let transport = new StreamableHTTPClientTransport(mcp, opts);
    // No token yet: the 401 names the metadata and the scope; the SDK registers and sends the person to consent.
    await expect(new Client({ name: 'sdk', version: '1' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(seen[0]).toEqual({
      status: 401,
      challenge: `Bearer realm="svc", resource_metadata="${running.url}/.well-known/oauth-protected-resource/mcp", scope="repo:read repo:write"`,
    });
    const asked = provider.urls[0] as URL;
    expect(asked.origin + asked.pathname).toBe(`${running.url}/oauth/authorize`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(`${running.url}/mcp`);
    expect(asked.searchParams.get('scope')).toBe('repo:read repo:write');
    expect(provider.info?.client_id).toBeTruthy();
    expect(provider.consentText).toContain('MCP SDK step-up client');
    expect(provider.consentText).toContain(new URL(callback.base).host);
    await transport.finishAuth(provider.code as string);
    expect(decodeJwt(provider.saved?.access_token as string)).toMatchObject({
      aud: `${running.url}/mcp`,
      sub: 'alice',
      scope: 'repo:read repo:write',
    });

    transport = new StreamableHTTPClientTransport(mcp, opts);
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['repo_head', 'thing_get', 'thing_put', 'whoami']);
    const put = await client.callTool({ name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/readme', content: 'hi' } });
    expect(put.structuredContent).toMatchObject({ committer: 'svc:default/users/Identity/alice' });

    // Refresh: the saved access token stops being accepted (as an expired one does); on the 401 the SDK refreshes and retries.
    const before = provider.saved as OAuthTokens;
    provider.saved = { ...before, access_token: `${before.access_token.slice(0, -4)}AAAA` };
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    expect(who.structuredContent).toMatchObject({ kind: 'session', user: 'alice' });
    expect(seen.at(-2)?.status).toBe(401);
    expect(provider.saved?.refresh_token).not.toBe(before.refresh_token);
    expect(decodeJwt(provider.saved?.access_token as string).jti).not.toBe(decodeJwt(before.access_token).jti);

    // Revocation (RFC 7009) of the refresh token ends the grant: the next request is a 401, and the refresh fails too.
    const revoked = await fetch(`${running.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: provider.saved?.refresh_token as string, client_id: provider.info?.client_id as string }),
    });
    expect(revoked.status).toBe(200);
    provider.interactive = false;
    // The SDK's refresh on that 401 is refused too (invalid_grant): the person must sign in again.
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toMatchObject({ name: 'InvalidGrantError' });
    expect(seen.at(-1)?.status).toBe(401);
    expect(seen.at(-1)?.challenge).toMatch(/error="invalid_token"/);
    await client.close();
  });

  it('scope step-up: approved for repo:read, a write is a 403 challenge, the person allows repo:write, the write succeeds', async () => {
    const mcp = new URL(`${running.url}/mcp`);
    const seen: { status: number; challenge: string | null }[] = [];
    const provider = new BrowserProvider(person, `${callback.base}/callback`, 'sdk-step-up');
    // The person approves repo:read only.
    expect(await auth(provider, { serverUrl: mcp, scope: 'repo:read' })).toBe('REDIRECT');
    expect(await auth(provider, { serverUrl: mcp, authorizationCode: provider.code as string })).toBe('AUTHORIZED');
    expect(scopeOf(provider.saved)).toBe('repo:read');
    const transport = new StreamableHTTPClientTransport(mcp, { authProvider: provider, fetch: recordingFetch(seen) });
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('thing_put');

    const write = { name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/step-up', content: 'more' } };
    // SDK 1.32 answers the challenge with auth(), which refreshes (same scope) and retries once: the 403 again
    // (typescript-sdk#2255). Nothing more happens without the person, which is the point: no consent loop.
    provider.interactive = false;
    await expect(client.callTool(write)).rejects.toThrow(/403/);
    const challenge = seen.find((s) => s.status === 403)?.challenge ?? '';
    expect(challenge).toBe(
      `Bearer realm="svc", error="insufficient_scope", scope="repo:read repo:write", ` +
        `resource_metadata="${running.url}/.well-known/oauth-protected-resource/mcp", ` +
        'error_description="this token was not granted repo:write: sign in again and allow it"',
    );

    // The workaround for #2255: forget the tokens and authorize with the challenge's scope; the person consents again.
    const scope = /scope="([^"]+)"/.exec(challenge)?.[1] as string;
    provider.saved = undefined;
    provider.interactive = true;
    expect(await auth(provider, { serverUrl: mcp, scope })).toBe('REDIRECT');
    expect(provider.consentText).toContain('Write things in repositories');
    expect(await auth(provider, { serverUrl: mcp, authorizationCode: provider.code as string })).toBe('AUTHORIZED');
    expect(scopeOf(provider.saved)).toBe('repo:read repo:write');
    const done = await client.callTool(write);
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ committer: 'svc:default/users/Identity/alice' });
    await client.close();
  });
});
