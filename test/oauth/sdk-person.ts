/**
 * What the MCP SDK client suites (1.x `@modelcontextprotocol/sdk` and 2.x
 * `@modelcontextprotocol/client`) share against a real `svc serve`: a person
 * in Debian's chromium who signs in as alice and approves, an
 * `OAuthClientProvider` kept in memory (with `invalidateCredentials`, the
 * SDK's documented way to drop tokens), and a fetch that records every `/mcp`
 * answer's status and challenge. Screenshots go to test-artifacts/.
 */
import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { chromium, type Browser as Chromium, type BrowserContext } from 'playwright-core';
import { expect } from 'vitest';
import { exited, serve, svc, tempHome } from '../cli/helpers';
import { CHROMIUM, CHROMIUM_FLAGS } from '../support/chromium';
import { listen } from '../support/oauth';

const ARTIFACTS = join(process.cwd(), 'test-artifacts');

/** A person at the browser: signs in as alice when asked, approves, and the app's callback receives the code. */
export class Person {
  constructor(
    private readonly context: BrowserContext,
    private readonly callback: { base: string; seen: URLSearchParams[] },
  ) {}

  /** Open `url`, sign in when the page asks, approve; the code the redirect carried. Screenshots named `<shot>-*.png`. */
  async approve(url: URL, shot: string): Promise<{ code: string; params: URLSearchParams; consentText: string }> {
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
      return { code: back.get('code') as string, params: back, consentText };
    } finally {
      await page.close();
    }
  }
}

/** The tokens a provider holds, as both SDK generations hand them over (with `scope` when the server says it). */
export interface HeldTokens {
  access_token: string;
  refresh_token?: string | undefined;
  scope?: string | undefined;
  token_type: string;
}

/**
 * An OAuthClientProvider kept in memory, of the shape both SDK generations
 * take; `redirectToAuthorization` sends the person to the URL when `interactive`.
 */
export class BrowserProvider {
  info: { client_id: string } | undefined;
  saved: HeldTokens | undefined;
  verifier = '';
  interactive = true;
  code: string | undefined;
  /** The whole callback query (`code`, `state`, `iss`): what the 2.x client's `finishAuth` checks (RFC 9207). */
  params: URLSearchParams | undefined;
  consentText = '';
  urls: URL[] = [];
  invalidated: string[] = [];
  constructor(
    private readonly person: Person,
    private readonly redirect: string,
    private readonly shot: string,
  ) {}
  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): {
    client_name: string;
    redirect_uris: string[];
    grant_types: string[];
    response_types: string[];
    token_endpoint_auth_method: string;
  } {
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
  clientInformation(): { client_id: string } | undefined {
    return this.info;
  }
  saveClientInformation(info: { client_id: string }): void {
    this.info = info;
  }
  tokens(): HeldTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: HeldTokens): void {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    this.urls.push(url);
    if (!this.interactive) return;
    const { code, params, consentText } = await this.person.approve(url, `${this.shot}-${this.urls.length}`);
    this.code = code;
    this.params = params;
    this.consentText = consentText;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  discovery: OAuthDiscoveryState | undefined;
  /** 2.x: the discovery state kept with the verifier, so the callback is checked against the same authorization server. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
  /** The SDK's hook to drop what the server no longer accepts: here, on a scope challenge, the tokens. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.info = undefined;
  }
}

/** One `/mcp` answer as the client saw it. */
export interface Seen {
  status: number;
  challenge: string | null;
}

/** fetch that remembers the status and challenge of every /mcp answer. */
export function recordingFetch(seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (new URL(input instanceof Request ? input.url : String(input)).pathname === '/mcp')
      seen.push({ status: res.status, challenge: res.headers.get('www-authenticate') });
    return res;
  };
}

/** The `scope` claim of the held access token. */
export const scopeOf = (t: HeldTokens | undefined): unknown => decodeJwt(t?.access_token as string)['scope'];

/** `svc serve` with alice an editor of acme, an app callback on loopback, and chromium with a person at it. */
export interface Stage {
  url: string;
  callback: string;
  person: Person;
  close(): Promise<void>;
}

/** Start the stage; `close` ends the browser, the callback, `svc serve` and its home. */
export async function stage(): Promise<Stage> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const { home, cleanup } = await tempHome();
  expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
  const running = await serve(home);
  const seen: URLSearchParams[] = [];
  const cb = await listen((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/callback') seen.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>back in the app</title><p>done</p>');
  });
  let browser: Chromium | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS] });
    const context = await browser.newContext({ viewport: { width: 720, height: 860 } });
    const person = new Person(context, { base: cb.base, seen });
    return {
      url: running.url,
      callback: `${cb.base}/callback`,
      person,
      async close() {
        await browser?.close();
        cb.server.close();
        running.child.kill('SIGTERM');
        await exited(running.child);
        await cleanup();
      },
    };
  } catch (err) {
    await browser?.close();
    cb.server.close();
    running.child.kill('SIGTERM');
    await cleanup();
    throw err;
  }
}
