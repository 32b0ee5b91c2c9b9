/**
 * The sign-in, consent and device pages in a real browser: Debian's chromium
 * driven by playwright-core (no browser download), with JavaScript off, as a
 * person would use them. Screenshots go to test-artifacts/ (not committed).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { chromium, type Browser as Chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS, describeWithChromium } from '../support/chromium';
import { authorize, type AuthorizeRequest, listen, redeem, register, type Running, startServer } from '../support/oauth';

const ARTIFACTS = join(process.cwd(), 'test-artifacts');

describeWithChromium('the browser pages')('the pages in Debian chromium (playwright-core), JavaScript off', () => {
  let s: Running;
  let browser: Chromium;
  let callback: { base: string; seen: URLSearchParams[]; close(): void };
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await startServer({ name: 'svc' });
    const seen: URLSearchParams[] = [];
    const { server, base } = await listen((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/callback') seen.push(url.searchParams); // not the browser's /favicon.ico
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>back in the app</title><p>done</p>');
    });
    callback = { base, seen, close: () => void server.close() };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
  });
  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await s?.close();
  });

  async function page(): Promise<Page> {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 720, height: 860 } });
    return context.newPage();
  }

  async function start(p: Page, scope: string): Promise<AuthorizeRequest> {
    const redirect = `${callback.base}/callback`;
    const client = await register(s.base, { client_name: 'Claude Desktop', redirect_uris: [redirect] });
    const request = authorize(s.base, client.client_id, { scope, state: 'browser-state', redirectUri: redirect });
    await p.goto(request.url);
    return request;
  }

  it('sign-in and consent work without JavaScript; approving sends a code back with the state', async () => {
    const p = await page();
    const request = await start(p, 'repo:read repo:write');
    expect(await p.title()).toBe('Sign in to svc · svc');
    expect(await p.locator('select#user option').allTextContents()).toEqual(['alice', 'bob']);
    await p.screenshot({ path: join(ARTIFACTS, 'oauth-sign-in.png'), fullPage: true });
    await p.selectOption('select#user', 'alice');
    await p.click('button[type=submit]');
    expect(await p.title()).toBe('Allow Claude Desktop? · svc');
    const text = await p.locator('main').innerText();
    expect(text).toContain('Claude Desktop');
    expect(text).toContain('alice');
    expect(text).toContain('Read repositories and the things in them');
    expect(text).toContain('Write things in repositories');
    expect(text).toContain(new URL(callback.base).host);
    await p.screenshot({ path: join(ARTIFACTS, 'oauth-consent.png'), fullPage: true });
    await p.click('button[value=approve]');
    await p.waitForURL(`${callback.base}/**`);
    const back = callback.seen.at(-1) as URLSearchParams;
    expect(back.get('state')).toBe('browser-state');
    const r = await redeem(request, back.get('code') as string);
    expect(r.body.scope).toBe('repo:read repo:write');
  });

  it('unticking a permission on the consent page: the token holds only what stayed ticked', async () => {
    const p = await page();
    const request = await start(p, 'repo:read repo:write org:admin');
    await p.selectOption('select#user', 'alice');
    await p.click('button[type=submit]');
    const boxes = p.locator('ul.perms input[type=checkbox]');
    expect(await boxes.count()).toBe(3);
    expect(await p.isChecked('#p-repo-write')).toBe(true);
    await p.uncheck('#p-repo-write');
    await p.uncheck('#p-org-admin');
    await p.screenshot({ path: join(ARTIFACTS, 'oauth-consent-untick.png'), fullPage: true });
    await p.click('button[value=approve]');
    await p.waitForURL(`${callback.base}/**`);
    const back = callback.seen.at(-1) as URLSearchParams;
    const r = await redeem(request, back.get('code') as string);
    expect(r.body.scope).toBe('repo:read');
  });

  it('Deny sends access_denied back to the app', async () => {
    const p = await page();
    await start(p, 'org:admin');
    await p.click('button[type=submit]');
    await p.click('button[value=deny]');
    await p.waitForURL(`${callback.base}/**`);
    expect(callback.seen.at(-1)?.get('error')).toBe('access_denied');
  });

  it('the device pages: enter the code, confirm it, sign in, approve', async () => {
    const client = await register(s.base, {
      client_name: 'Acme devices',
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      response_types: [],
      redirect_uris: [],
    });
    const res = await fetch(`${s.base}/oauth/device_authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: client.client_id, scope: 'repo:read', resource: s.base }).toString(),
    });
    const d = (await res.json()) as { user_code: string; verification_uri: string };
    const p = await page();
    await p.goto(d.verification_uri);
    await p.screenshot({ path: join(ARTIFACTS, 'oauth-device-code.png'), fullPage: true });
    await p.fill('input#user_code', d.user_code);
    await p.click('button[type=submit]');
    expect(await p.locator('p.code').innerText()).toBe(d.user_code);
    await p.screenshot({ path: join(ARTIFACTS, 'oauth-device-confirm.png'), fullPage: true });
    await p.click('button[value=yes][name=confirm]');
    await p.click('button[type=submit]'); // sign in as the first member
    expect(await p.locator('main').innerText()).toContain('a device or command line');
    await p.screenshot({ path: join(ARTIFACTS, 'oauth-device-consent.png'), fullPage: true });
    await p.click('button[value=approve]');
    expect(await p.locator('h1').innerText()).toBe('Device connected');
    await p.screenshot({ path: join(ARTIFACTS, 'oauth-device-done.png'), fullPage: true });
  });

  it('an error page says what went wrong, in words, without internals', async () => {
    const p = await page();
    await p.goto(`${s.base}/oauth/authorize?client_id=nobody&response_type=code&state=s`);
    const text = await p.locator('main').innerText();
    expect(text).toContain('invalid_client');
    expect(text).not.toMatch(/node_modules|\bat \w+ \(/);
    await p.screenshot({ path: join(ARTIFACTS, 'oauth-error.png'), fullPage: true });
  });
});
