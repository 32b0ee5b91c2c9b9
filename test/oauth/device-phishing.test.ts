/**
 * Device code phishing (issue 28): a person who once approved `svc auth login`
 * is mailed the `verification_uri_complete` of a device authorization the
 * attacker started as `svc-cli`. Before the fix, the earlier consent was
 * reused: one click on "Confirm the code" gave the attacker's poll a
 * full-access token. Now the device flow never reuses a consent: the consent
 * page, with its warning, is shown every time, and the code page says what
 * signing in will allow. Also: the page a link opens is this server's own
 * (no script, the pages' headers), and wrong user codes are limited per
 * address (RFC 8628 section 5.1).
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_CLIENT_ID } from '../../src/entries/oauth';
import { Browser, formOf, register, startServer, token, type Running } from '../support/oauth';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri_complete: string;
}

async function deviceStart(s: Running, clientId: string, scope?: string): Promise<DeviceStart> {
  const res = await fetch(`${s.base}/oauth/device_authorization`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, resource: s.base, ...(scope === undefined ? {} : { scope }) }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as DeviceStart;
}

const poll = (s: Running, d: DeviceStart, clientId: string): ReturnType<typeof token> =>
  token(s.base, { grant_type: DEVICE_GRANT, device_code: d.device_code, client_id: clientId });

/** The person opens the link, presses Continue and confirms the code; the page shown next, and the confirm page. */
async function openLinkAndConfirm(s: Running, browser: Browser, link: string): Promise<{ next: string; confirm: string }> {
  const first = await browser.walk(link, s.base);
  const linkForm = formOf(await first.res.text(), s.base);
  const confirm = await (await browser.submit(linkForm.action, linkForm.hidden, s.base)).res.text();
  const form = formOf(confirm, s.base);
  const next = await (await browser.submit(form.action, { ...form.hidden, confirm: 'yes' }, s.base)).res.text();
  return { next, confirm };
}

/** Sign in as alice when asked; the consent page. */
async function signInIfAsked(s: Running, browser: Browser, html: string): Promise<string> {
  if (!html.includes('name="user"')) return html;
  const login = formOf(html, s.base);
  return (await browser.submit(login.action, { ...login.hidden, user: 'alice' }, s.base)).res.text();
}

async function decide(s: Running, browser: Browser, consent: string, decision: 'approve' | 'deny'): Promise<string> {
  const form = formOf(consent, s.base);
  return (await browser.submit(form.action, { ...form.hidden, decision }, s.base)).res.text();
}

describe('device code phishing: one click must not give an attacker a full-access token', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer({ devicePollIntervalSec: 1, clients: { cli: true } });
  });
  afterAll(() => s.close());

  it('after an earlier svc auth login, a mailed svc-cli link completes only after the consent page with its warning is approved', async () => {
    const person = new Browser();
    // The person's own `svc auth login`, approved once in this browser.
    const own = await deviceStart(s, CLI_CLIENT_ID);
    const first = await openLinkAndConfirm(s, person, own.verification_uri_complete);
    expect(await decide(s, person, await signInIfAsked(s, person, first.next), 'approve')).toContain('Device connected');

    // The attacker starts a device authorization as svc-cli and mails its link.
    const attack = await deviceStart(s, CLI_CLIENT_ID);
    const { next, confirm } = await openLinkAndConfirm(s, person, attack.verification_uri_complete);
    // The code page says what signing in allows, and to cancel a code someone else sent.
    expect(confirm).toContain('full access as you');
    expect(confirm).toContain('If someone sent you this link or code, cancel');
    expect(confirm).not.toContain('name given by the app');
    // Confirming the code is not enough: the consent page, with its warning, comes next.
    expect(next).not.toContain('Device connected');
    const consent = await signInIfAsked(s, person, next);
    expect(consent).toContain('full access as you, alice');
    expect(consent).toContain('If someone sent you this link, deny');
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await poll(s, attack, CLI_CLIENT_ID)).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });

    // Deny: the attacker's poll gets access_denied, never a token.
    expect(await decide(s, person, consent, 'deny')).toContain('Access was denied');
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await poll(s, attack, CLI_CLIENT_ID)).toMatchObject({ status: 400, body: { error: 'access_denied' } });
  });

  it('approving on the consent page is what completes a second device code (and its token is the one approved)', async () => {
    const person = new Browser();
    const one = await deviceStart(s, CLI_CLIENT_ID);
    const a = await openLinkAndConfirm(s, person, one.verification_uri_complete);
    await decide(s, person, await signInIfAsked(s, person, a.next), 'approve');
    const two = await deviceStart(s, CLI_CLIENT_ID);
    const b = await openLinkAndConfirm(s, person, two.verification_uri_complete);
    expect(b.next).toContain('If someone sent you this link, deny');
    expect(await decide(s, person, await signInIfAsked(s, person, b.next), 'approve')).toContain('Device connected');
    await new Promise((r) => setTimeout(r, 1_100));
    const got = await poll(s, two, CLI_CLIENT_ID);
    expect(got.status).toBe(200);
    expect(decodeJwt(got.body.access_token as string)).toMatchObject({ sub: 'alice', client_id: CLI_CLIENT_ID });
  });

  it('every client, not only svc-cli: a third-party device client is asked again too, its page names it as the app’s claim', async () => {
    const client = await register(s.base, {
      client_name: 'Acme tool',
      grant_types: [DEVICE_GRANT, 'refresh_token'],
      response_types: [],
      redirect_uris: [],
    });
    const person = new Browser();
    const one = await deviceStart(s, client.client_id, 'repo:read');
    const a = await openLinkAndConfirm(s, person, one.verification_uri_complete);
    expect(a.confirm).toContain('(name given by the app)');
    expect(a.confirm).toContain(client.client_id);
    expect(a.confirm).toContain('Read repositories and the things in them');
    await decide(s, person, await signInIfAsked(s, person, a.next), 'approve');
    const two = await deviceStart(s, client.client_id, 'repo:read');
    const b = await openLinkAndConfirm(s, person, two.verification_uri_complete);
    const consent = await signInIfAsked(s, person, b.next);
    expect(consent).toContain('Allow Acme tool?');
    expect(consent).toContain('If someone sent you this link, deny');
  });

  it('the page a link opens is the server’s own: no script, and the headers of every page', async () => {
    const d = await deviceStart(s, CLI_CLIENT_ID);
    const res = await new Browser().request(d.verification_uri_complete);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('Submitting Callback');
    expect(html).toContain(`value="${d.user_code}"`);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(res.headers.get('content-security-policy')).not.toMatch(/script-src/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('guessing user codes (RFC 8628 section 5.1)', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer({ devicePollIntervalSec: 1, clients: { cli: true } });
  });
  afterAll(() => s.close());

  it('past 10 wrong codes from one address, every code is refused with a page that says why, a right one too', async () => {
    const d = await deviceStart(s, CLI_CLIENT_ID);
    const guesser = new Browser();
    // Each answer carries a fresh form (anti-forgery value): the guesser reads it, as a script would.
    let page = formOf(await (await guesser.walk(`${s.base}/oauth/device`, s.base)).res.text(), s.base);
    const attempt = async (code: string): Promise<Response> =>
      guesser.request(page.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: s.base },
        body: new URLSearchParams({ ...page.hidden, user_code: code }).toString(),
      });
    for (let i = 0; i < 10; i++) {
      const res = await attempt('BCDF-GHJK');
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(html).toContain('That code is not right');
      page = formOf(html, s.base);
    }
    const refused = await attempt(d.user_code);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const text = await refused.text();
    expect(text).toContain('Too many wrong codes');
    expect(text).not.toContain('Check that your device shows this code');
  });
});
