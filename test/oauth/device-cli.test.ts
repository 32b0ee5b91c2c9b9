/**
 * The command line's first-party client (`clients: { cli: true }`, client id
 * `svc-cli`): its device-flow tokens carry no `scope` (a session that may
 * manage tokens), and no other client can get a token without one.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemTime, testAuth } from '../support/auth';
import { CLI_CLIENT_ID, trustedIssuerFor } from '../../src/entries/oauth';
import { authorize, Browser, formOf, register, type Running, startServer, token } from '../support/oauth';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function deviceStart(s: Running, fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${s.base}/oauth/device_authorization`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Confirm the code, sign in as alice, decide; the consent page's HTML and the last page. */
async function approve(s: Running, uri: string, decision: 'approve' | 'deny'): Promise<{ consent: string; done: string }> {
  const browser = new Browser();
  const first = await browser.walk(uri, s.base);
  const autopost = formOf(await first.res.text(), s.base);
  const confirm = formOf(await (await browser.submit(autopost.action, autopost.hidden, s.base)).res.text(), s.base);
  const login = formOf(await (await browser.submit(confirm.action, { ...confirm.hidden, confirm: 'yes' }, s.base)).res.text(), s.base);
  const consent = await (await browser.submit(login.action, { ...login.hidden, user: 'alice' }, s.base)).res.text();
  const form = formOf(consent, s.base);
  const done = await (await browser.submit(form.action, { ...form.hidden, decision }, s.base)).res.text();
  return { consent, done };
}

/** The whole device flow for `clientId`; the token answer. */
async function deviceTokens(s: Running, clientId: string, extra: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const d = await deviceStart(s, { client_id: clientId, resource: s.base, ...extra });
  expect(d.status).toBe(200);
  await approve(s, d.body.verification_uri_complete as string, 'approve');
  await new Promise((r) => setTimeout(r, 1_100));
  const got = await token(s.base, { grant_type: DEVICE_GRANT, device_code: d.body.device_code as string, client_id: clientId });
  expect(got.status).toBe(200);
  return got.body;
}

describe('the svc-cli client (clients.cli)', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer({ devicePollIntervalSec: 1, clients: { cli: true } });
  });
  afterAll(() => s.close());

  it('its consent page says plainly that the svc command line asks for full access, tokens included', async () => {
    const d = await deviceStart(s, { client_id: CLI_CLIENT_ID, resource: s.base });
    const { consent, done } = await approve(s, d.body.verification_uri_complete as string, 'deny');
    expect(consent).toContain('full access as you, alice');
    expect(consent).toContain('create, list and revoke your tokens');
    expect(consent).toContain('If someone sent you this link, deny');
    expect(done).toContain('Access was denied');
  });

  it('its access token has no scope claim, is for the API resource, and may manage tokens', async () => {
    const body = await deviceTokens(s, CLI_CLIENT_ID);
    const claims = decodeJwt(body.access_token as string);
    expect(claims).toMatchObject({ aud: s.base, sub: 'alice', client_id: CLI_CLIENT_ID });
    expect(Object.hasOwn(claims, 'scope')).toBe(false);
    expect(body.scope).toBeUndefined();
    // The API's Auth accepts it as an unnarrowed session: token management works (issue 20 refuses narrowed ones).
    const { auth: api } = await testAuth({
      issuer: 'svc-api',
      everyone: { orgs: { acme: 'owner' } },
      tokens: s.tokens,
      now: systemTime,
      trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: s.base })],
    });
    const me = await api.authenticate(body.access_token as string);
    const made = await api.client(me).token.create({ name: 'from-cli', scopes: [{ resource: 'acme', permissions: ['repo:read'] }] });
    expect(made.info.name).toBe('from-cli');
    // Refresh keeps it unnarrowed, and rotates: the spent refresh token is refused.
    const r = await token(s.base, { grant_type: 'refresh_token', refresh_token: body.refresh_token as string, client_id: CLI_CLIENT_ID });
    expect(r.status).toBe(200);
    expect(Object.hasOwn(decodeJwt(r.body.access_token as string), 'scope')).toBe(false);
    expect(r.body.refresh_token).not.toBe(body.refresh_token);
    const again = await token(s.base, {
      grant_type: 'refresh_token',
      refresh_token: body.refresh_token as string,
      client_id: CLI_CLIENT_ID,
    });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('svc auth sessions tells its grant apart: named for the client id, described, marked current, last used by its tokens', async () => {
    const body = await deviceTokens(s, CLI_CLIENT_ID);
    const { auth: api } = await testAuth({
      issuer: 'svc-api',
      everyone: { orgs: { acme: 'owner' } },
      tokens: s.tokens,
      now: systemTime,
      lastUsedIntervalMs: 1_000,
      trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: s.base })],
    });
    const me = await api.authenticate(body.access_token as string);
    const jti = decodeJwt(body.access_token as string).jti as string;
    const grantId = (await s.tokens.listByOwner('alice')).find((r) => r.id === jti)?.parentId;
    const mine = (await api.client(me).sessions.list()).find((x) => x.id === grantId);
    expect(mine).toMatchObject({ name: 'oauth-svc-cli', current: true, status: 'active' });
    expect(mine?.description).toBe('OAuth grant to "svc command line" (name given by the app), client svc-cli, device: full access');
    await api.flush();
    const again = (await api.client(me).sessions.list()).find((x) => x.id === grantId);
    expect(again?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('asks for the MCP resource as svc-cli: refused (its tokens are for the API only)', async () => {
    const d = await deviceStart(s, { client_id: CLI_CLIENT_ID, resource: `${s.base}/mcp` });
    expect(d).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  it('impersonation by registration: a client that registers client_id svc-cli gets another id, and its tokens carry a scope', async () => {
    const fake = await register(s.base, {
      client_id: CLI_CLIENT_ID,
      client_name: 'Acme tool',
      grant_types: [DEVICE_GRANT, 'refresh_token'],
      response_types: [],
      redirect_uris: [],
    });
    expect(fake.client_id).not.toBe(CLI_CLIENT_ID);
    const body = await deviceTokens(s, fake.client_id);
    expect(decodeJwt(body.access_token as string).scope).toBe(
      'repo:read repo:write repo:configure repo:admin org:read org:configure org:admin',
    );
  });

  it('impersonation by the code flow: svc-cli has no redirect URI, so a web page cannot start a sign-in as it', async () => {
    const browser = new Browser();
    const { url } = authorize(s.base, CLI_CLIENT_ID, { resource: s.base, params: { scope: undefined } });
    const step = await browser.walk(url, s.base);
    expect(step.url.startsWith(s.base)).toBe(true); // no redirect to the attacker's page
    expect(step.res.status).toBe(400);
    expect(await step.res.text()).toContain('invalid_redirect_uri');
  });

  it('asking for no svc scope: another client still gets a scope claim (never an unnarrowed token)', async () => {
    const other = await register(s.base, { grant_types: [DEVICE_GRANT, 'refresh_token'], response_types: [], redirect_uris: [] });
    const body = await deviceTokens(s, other.client_id, { scope: 'openid' });
    expect(Object.hasOwn(decodeJwt(body.access_token as string), 'scope')).toBe(true);
    // Narrowing the scope on refresh to nothing of svc: still a claim, which grants nothing.
    const r = await token(s.base, {
      grant_type: 'refresh_token',
      refresh_token: body.refresh_token as string,
      client_id: other.client_id,
      scope: 'openid',
    });
    if (r.status === 200) {
      const claims = decodeJwt(r.body.access_token as string);
      expect(typeof claims.scope).toBe('string');
      expect(String(claims.scope)).not.toMatch(/repo:|org:/);
    } else expect(r.body.error).toMatch(/invalid_scope|invalid_grant/);
  });
});

describe('without clients.cli', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer({ devicePollIntervalSec: 1 });
  });
  afterAll(() => s.close());

  it('svc-cli is an unknown client', async () => {
    const d = await deviceStart(s, { client_id: CLI_CLIENT_ID, resource: s.base });
    expect(d).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});
