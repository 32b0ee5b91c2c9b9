import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, formOf, register, startServer, token, type Running } from '../support/oauth';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function deviceAuthorization(s: Running, clientId: string, fields: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.base}/oauth/device_authorization`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, scope: 'repo:read', resource: `${s.base}/`, ...fields }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** A person opens the verification URI, checks the code, and (after sign-in) decides. */
async function approveInBrowser(s: Running, uri: string, decision: 'approve' | 'deny' | 'cancel'): Promise<string> {
  const browser = new Browser();
  // verification_uri_complete posts the code to the confirm page (a form that submits itself; a button without script).
  const first = await browser.walk(uri, s.base);
  const autopost = formOf(await first.res.text(), s.base);
  const confirmPage = await browser.submit(autopost.action, autopost.hidden, s.base);
  const confirmHtml = await confirmPage.res.text();
  expect(confirmHtml).toContain('Check that your device shows this code');
  const confirm = formOf(confirmHtml, s.base);
  const pressed = decision === 'cancel' ? { abort: 'yes' } : { confirm: 'yes' };
  let step = await browser.submit(confirm.action, { ...confirm.hidden, ...pressed }, s.base);
  let html = await step.res.text();
  if (decision === 'cancel') return html;
  const login = formOf(html, s.base);
  step = await browser.submit(login.action, { ...login.hidden, user: 'alice' }, s.base);
  html = await step.res.text();
  expect(html).toContain('Sign-in for');
  const consent = formOf(html, s.base);
  step = await browser.submit(consent.action, { ...consent.hidden, decision }, s.base);
  return step.res.text();
}

describe('the device flow (RFC 8628), as `svc auth login` will use it', () => {
  let s: Running;
  let clientId: string;
  beforeAll(async () => {
    s = await startServer({ devicePollIntervalSec: 1 });
    clientId = (
      await register(s.base, {
        grant_types: [DEVICE_GRANT, 'refresh_token'],
        response_types: [],
        redirect_uris: [],
        client_name: 'Acme devices',
      })
    ).client_id;
  });
  afterAll(() => s.close());

  it('answers the device authorization with codes, URIs and the poll interval', async () => {
    const d = await deviceAuthorization(s, clientId);
    expect(d).toMatchObject({ verification_uri: `${s.base}/oauth/device`, expires_in: 600, interval: 1 });
    expect(d.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(d.verification_uri_complete).toBe(`${s.base}/oauth/device?user_code=${String(d.user_code)}`);
  });

  it('pending until approved, slow_down when polled too fast, then tokens for the API resource', async () => {
    const d = await deviceAuthorization(s, clientId);
    const poll = (): ReturnType<typeof token> =>
      token(s.base, { grant_type: DEVICE_GRANT, device_code: d.device_code as string, client_id: clientId });
    expect(await poll()).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    expect(await poll()).toMatchObject({ status: 400, body: { error: 'slow_down' } });
    const done = await approveInBrowser(s, d.verification_uri_complete as string, 'approve');
    expect(done).toContain('Device connected');
    expect(done).toContain('Acme devices');
    await new Promise((r) => setTimeout(r, 1_100));
    const got = await poll();
    expect(got.status).toBe(200);
    expect(decodeJwt(got.body.access_token as string)).toMatchObject({ aud: s.base, sub: 'alice', scope: 'repo:read' });
    expect(typeof got.body.refresh_token).toBe('string');
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await poll()).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a denial on the consent page: the device gets access_denied', async () => {
    const d = await deviceAuthorization(s, clientId);
    const html = await approveInBrowser(s, d.verification_uri_complete as string, 'deny');
    expect(html).toContain('Access was denied');
    const got = await token(s.base, { grant_type: DEVICE_GRANT, device_code: d.device_code as string, client_id: clientId });
    expect(got).toMatchObject({ status: 400, body: { error: 'access_denied' } });
  });

  it('cancelling on the confirm page (codes do not match): access_denied', async () => {
    const d = await deviceAuthorization(s, clientId);
    const html = await approveInBrowser(s, d.verification_uri_complete as string, 'cancel');
    expect(html).toContain('cancelled');
    const got = await token(s.base, { grant_type: DEVICE_GRANT, device_code: d.device_code as string, client_id: clientId });
    expect(got).toMatchObject({ status: 400, body: { error: 'access_denied' } });
  });

  it('device code phishing with a guessed user code: a wrong code is refused on the page', async () => {
    const browser = new Browser();
    const page = await browser.walk(`${s.base}/oauth/device`, s.base);
    const form = formOf(await page.res.text(), s.base);
    const r = await browser.submit(form.action, { ...form.hidden, user_code: 'BCDF-GHJK' }, s.base);
    expect(await r.res.text()).toContain('That code is not right');
  });
});
