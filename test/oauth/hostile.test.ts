import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approve,
  authorize,
  type AuthorizeRequest,
  Browser,
  codeFlow,
  formOf,
  redeem,
  register,
  type Running,
  startServer,
  token,
} from '../support/oauth';

/** The authorization request of a fresh client with PKCE; `extra` overrides (or, as undefined, leaves out) any parameter. */
async function request(s: Running, extra: Record<string, string | undefined> = {}): Promise<AuthorizeRequest> {
  return authorize(s.base, (await register(s.base)).client_id, { state: 'st', params: extra });
}

/** The consent page of a fresh request, signed in as alice: its HTML, form and browser. */
async function consentPage(s: Running): Promise<{ html: string; browser: Browser; action: string; csrf: string; loginCsrf: string }> {
  const browser = new Browser();
  const { url } = await request(s);
  const first = await browser.walk(url, s.base);
  const login = formOf(await first.res.text(), s.base);
  const next = await browser.submit(login.action, { ...login.hidden, user: 'alice' }, s.base);
  const html = await next.res.text();
  const form = formOf(html, s.base);
  return { html, browser, action: form.action, csrf: form.hidden.csrf as string, loginCsrf: login.hidden.csrf as string };
}

describe('hostile clients and pages at the authorization server (each test is named for the attack)', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  describe('open redirect: redirect URIs are matched exactly', () => {
    for (const [name, uri] of [
      ['another host', 'http://evil.example/callback'],
      ['another port', 'http://127.0.0.1:10/callback'],
      ['a longer path', 'http://127.0.0.1:9/callback/evil'],
      ['an added query', 'http://127.0.0.1:9/callback?next=http://evil.example'],
      ['a trailing slash', 'http://127.0.0.1:9/callback/'],
      ['another scheme', 'https://127.0.0.1:9/callback'],
      ['a userinfo trick', 'http://127.0.0.1:9@evil.example/callback'],
    ] as const) {
      it(`a redirect_uri with ${name} is refused on the server's page, never redirected to`, async () => {
        const { url } = await request(s, { redirect_uri: uri });
        const res = await new Browser().request(url, { headers: { accept: 'text/html' } });
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        const html = await res.text();
        expect(html).toContain('invalid_redirect_uri');
        expect(html).not.toMatch(/evil\.example/);
      });
    }
  });

  it('CSRF on the client (no state): without state PKCE still binds the code to its verifier; without either, refused', async () => {
    // OAuth 2.1 4.1.1: state is optional once PKCE is used; a code is issued and redeemed with the verifier only.
    const req = await request(s, { state: undefined });
    const { url: back, code } = await approve(req);
    expect(new URL(back).searchParams.has('state')).toBe(false);
    expect((await redeem(req, code as string, { code_verifier: `${req.verifier}x` })).status).toBe(400);
    const none = await request(s, { state: undefined, code_challenge: undefined, code_challenge_method: undefined });
    const res = await new Browser().request(none.url);
    const refused = new URL(res.headers.get('location') as string);
    expect(refused.searchParams.get('error')).toBe('invalid_request');
    expect(refused.searchParams.get('code')).toBeNull();
  });

  it('code interception without PKCE: no code_challenge, or the plain method, is refused', async () => {
    for (const extra of [{ code_challenge: undefined, code_challenge_method: undefined }, { code_challenge_method: 'plain' }]) {
      const { url } = await request(s, extra);
      const res = await new Browser().request(url);
      const back = new URL(res.headers.get('location') as string);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('code')).toBeNull();
    }
  });

  it('stolen code with the wrong PKCE verifier: invalid_grant, and the code is spent', async () => {
    const req = await request(s);
    const code = (await approve(req)).code as string;
    const wrong = await redeem(req, code, { code_verifier: `${req.verifier}x` });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const missing = await redeem(req, code, { code_verifier: undefined });
    expect(missing.status).toBe(400);
  });

  it('code replay: an authorization code is single use, and its replay ends the grant it made', async () => {
    const req = await request(s);
    const { clientId } = req;
    const code = (await approve(req)).code as string;
    const first = await redeem(req, code);
    expect(first.status).toBe(200);
    const again = await redeem(req, code);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const refresh = await token(s.base, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('code theft across clients: a code issued to one client is refused for another', async () => {
    const req = await request(s);
    const code = (await approve(req)).code as string;
    const other = await register(s.base);
    const r = await redeem(req, code, { client_id: other.client_id });
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refresh token theft across clients: a refresh token of one client is refused for another', async () => {
    const { tokens } = await codeFlow(s.base);
    const other = await register(s.base);
    const r = await token(s.base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: other.client_id,
    });
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('revocation by another client does nothing, with the same 200 (no oracle)', async () => {
    const { tokens, clientId } = await codeFlow(s.base);
    const other = await register(s.base);
    const res = await fetch(`${s.base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token as string, client_id: other.client_id }).toString(),
    });
    expect(res.status).toBe(200);
    const still = await token(s.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
    expect(still.status).toBe(200);
  });

  it('consent phishing: the consent page names the client as its own claim and shows the redirect host', async () => {
    const { html } = await consentPage(s);
    expect(html).toContain('Test Client');
    expect(html).toContain('(name given by the app)');
    expect(html).toContain('Returns you to');
    expect(html).toContain('127.0.0.1:9');
    expect(html).toContain('Read repositories and the things in them');
    expect(html).toMatch(/value="deny"/);
  });

  it('consent page in a frame (clickjacking): frame-ancestors none, X-Frame-Options DENY, no script allowed', async () => {
    const browser = new Browser();
    const { url } = await request(s);
    const { res } = await browser.walk(url, s.base);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  describe('CSRF on the consent form', () => {
    it('a post from another origin is refused (403), even with the right form token', async () => {
      const c = await consentPage(s);
      const r = await c.browser.submit(c.action, { csrf: c.csrf, decision: 'approve' }, 'http://evil.example');
      expect(r.res.status).toBe(403);
      expect(r.url).toBe(c.action);
      expect(await r.res.text()).toContain('another site');
    });

    it('a cross-site post without Origin (Sec-Fetch-Site: cross-site) is refused', async () => {
      const c = await consentPage(s);
      const res = await c.browser.request(c.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
        body: new URLSearchParams({ csrf: c.csrf, decision: 'approve' }).toString(),
      });
      expect(res.status).toBe(403);
    });

    for (const [name, csrf] of [
      ['no form token', undefined],
      ['a made-up form token', 'A'.repeat(43)],
      ['the sign-in form token', 'login'],
    ] as const) {
      it(`a post with ${name} is refused, and the consent stays undecided`, async () => {
        const c = await consentPage(s);
        // The token of the other form of the same interaction is refused too.
        const value = csrf === 'login' ? c.loginCsrf : csrf;
        const fields: Record<string, string> = { decision: 'approve' };
        if (value !== undefined) fields.csrf = value;
        const r = await c.browser.submit(c.action, fields, s.base);
        expect(r.res.status).toBe(403);
        // The real form still works afterwards: the forgery changed nothing.
        const ok = await c.browser.submit(c.action, { ...formOf(c.html, s.base).hidden, decision: 'approve' }, s.base);
        expect(new URL(ok.url).searchParams.get('code')).not.toBeNull();
      });
    }

    it('login CSRF: a sign-in form posted from a browser without the interaction cookie is refused', async () => {
      const c = await consentPage(s);
      const stranger = new Browser();
      const r = await stranger.submit(c.action, { csrf: c.csrf, decision: 'approve' }, s.base);
      expect(r.res.status).toBe(400);
      expect(await r.res.text()).toContain('expired');
    });
  });

  it('every OAuth error is answered per its RFC: JSON {error, error_description}, no stack, no token value', async () => {
    const { tokens, clientId } = await codeFlow(s.base);
    const rt = tokens.refresh_token as string;
    const cases: [string, RequestInit][] = [
      ['/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=nope' }],
      [
        '/oauth/token',
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=refresh_token&refresh_token=${rt}x&client_id=${clientId}`,
        },
      ],
      ['/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"authorization_code"' }],
      ['/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x'.repeat(60 * 1024) }],
      ['/oauth/token', { method: 'GET' }],
      ['/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":"nope"}' }],
      ['/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }],
      ['/oauth/revoke', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${rt}` }],
      [
        '/oauth/device_authorization',
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=unknown' },
      ],
      ['/oauth/nothing-here', { method: 'GET' }],
    ];
    for (const [path, init] of cases) {
      const res = await fetch(`${s.base}${path}`, init);
      const text = await res.text();
      expect(res.status, `${path} ${text}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(typeof body.error, text).toBe('string');
      expect(
        Object.keys(body).every((k) => ['error', 'error_description', 'state', 'scope'].includes(k)),
        text,
      ).toBe(true);
      expect(text).not.toMatch(/\n\s+at |node_modules|\.js:\d+/);
      expect(text).not.toContain(rt.slice(0, 16));
    }
    // The authorization endpoint must not redirect to an unverified client (RFC 6749 4.1.2.1): it tells the person, on a page.
    const page = await fetch(`${s.base}/oauth/authorize?client_id=unknown&response_type=code&state=s`);
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain('invalid_client');
    expect(html).not.toMatch(/\n\s+at |node_modules|\.js:\d+/);
    expect(s.logs.filter((l) => /server_error/.test(l))).toEqual([]);
  });

  it('a resume link replayed in another browser (or made up) is an expired-sign-in page, not a server error', async () => {
    const client = await register(s.base);
    for (const path of [
      '/oauth/authorize/made-up-interaction',
      `/oauth/authorize/xyz?client_id=${client.client_id}`,
      '/oauth/device/made-up',
    ]) {
      const res = await new Browser().request(`${s.base}${path}`, { headers: { accept: 'text/html', cookie: 'svc_oauth_resume=stolen' } });
      expect(res.status).toBe(400);
      expect(await res.text()).not.toMatch(/\n\s+at |node_modules/);
    }
    expect(s.logs.filter((l) => /server_error/.test(l))).toEqual([]);
  });

  it('a device code form posted from another browser (no sign-in cookie) is sent back to the start', async () => {
    const res = await fetch(`${s.base}/oauth/device`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
      body: 'user_code=BCDF-GHJK&confirm=yes',
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/oauth/device');
  });

  it('the sign-in form refuses a user who is not on the list', async () => {
    const browser = new Browser();
    const { url } = await request(s);
    const first = await browser.walk(url, s.base);
    const login = formOf(await first.res.text(), s.base);
    const r = await browser.submit(login.action, { ...login.hidden, user: 'mallory' }, s.base);
    expect(r.res.status).toBe(400);
    expect(await r.res.text()).toContain('not a member');
  });
});
