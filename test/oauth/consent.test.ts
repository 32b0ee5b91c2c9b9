/**
 * The consent page is not all or nothing (issue 28): a person may untick
 * permissions, and the grant, the access token's `scope` and every refreshed
 * token hold only what stayed ticked. A later request that asks again (step-up
 * after a 403) shows the page again, and the new grant replaces the old one:
 * the old grant's tokens are refused on their next request. A user with no
 * access is told so on the page.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Auth } from '../../src/service';
import { systemTime, testAuth } from '../support/auth';
import { trustedIssuerFor } from '../../src/entries/oauth';
import { authorize, type AuthorizeRequest, Browser, formOf, redeem, register, type Running, startServer, token } from '../support/oauth';

/** Start a code flow for `clientId` in `browser`, signing in as `user` when asked; the consent page. */
async function consentPageFor(s: Running, browser: Browser, clientId: string, scope: string, user = 'alice') {
  const request = authorize(s.base, clientId, { scope, state: 'st' });
  let step = await browser.walk(request.url, s.base);
  if (!step.url.startsWith(s.base)) return { request, html: '', url: step.url };
  let html = await step.res.text();
  if (html.includes('name="user"')) {
    const login = formOf(html, s.base);
    step = await browser.submit(login.action, { ...login.hidden, user }, s.base);
    if (!step.url.startsWith(s.base)) return { request, html: '', url: step.url };
    html = await step.res.text();
  }
  return { request, html, url: step.url };
}

/** Approve with only `keep` ticked; the redirect back to the client (or the page shown instead). */
async function approveOnly(s: Running, browser: Browser, html: string, keep: readonly string[]) {
  const form = formOf(html, s.base);
  const fields: Record<string, string> = { decision: 'approve' };
  for (const [k, v] of Object.entries(form.hidden)) if (!k.startsWith('permission.') || keep.includes(k.slice(11))) fields[k] = v;
  return browser.submit(form.action, fields, s.base);
}

/** Redeem the code the client got back at `back`; the token response (which must be a 200). */
async function redeemed(request: AuthorizeRequest, back: string): Promise<Record<string, unknown>> {
  const code = new URL(back).searchParams.get('code');
  expect(code).not.toBeNull();
  const r = await redeem(request, code as string);
  expect(r.status).toBe(200);
  return r.body;
}

describe('unticking permissions on the consent page', () => {
  let s: Running;
  let mcp: Auth;
  beforeAll(async () => {
    s = await startServer();
    ({ auth: mcp } = await testAuth({
      issuer: 'svc-mcp',
      everyone: { orgs: { acme: 'owner' } },
      tokens: s.tokens,
      now: systemTime,
      trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: `${s.base}/mcp` })],
    }));
  });
  afterAll(() => s.close());

  it('over-granting: an unticked permission is in neither the token nor a refreshed one', async () => {
    const { client_id: clientId } = await register(s.base);
    const browser = new Browser();
    const { html, request } = await consentPageFor(s, browser, clientId, 'repo:read repo:write org:admin');
    expect(html).toContain('name="permission.repo:write" value="yes" checked');
    const back = await approveOnly(s, browser, html, ['repo:read']);
    const body = await redeemed(request, back.url);
    expect(decodeJwt(body.access_token as string).scope).toBe('repo:read');
    expect(body.scope).toBe('repo:read');
    const r = await token(s.base, { grant_type: 'refresh_token', refresh_token: body.refresh_token as string, client_id: clientId });
    expect(r.status).toBe(200);
    expect(decodeJwt(r.body.access_token as string).scope).toBe('repo:read');
  });

  it('step-up: asking again for what was unticked shows the page again; the new grant replaces the old one, whose tokens stop', async () => {
    const { client_id: clientId } = await register(s.base);
    const browser = new Browser();
    const first = await consentPageFor(s, browser, clientId, 'repo:read repo:write');
    const firstBack = await approveOnly(s, browser, first.html, ['repo:read']);
    const old = await redeemed(first.request, firstBack.url);
    expect((await mcp.authenticate(old.access_token as string)).userId).toBe('alice');

    // After a 403 the client asks for repo:write again: the person is asked, not refused silently.
    const again = await consentPageFor(s, browser, clientId, 'repo:read repo:write');
    expect(again.url).toContain('/oauth/interaction/');
    expect(again.html).toMatch(/Read repositories and the things in them <span class="muted">\(already allowed\)/);
    expect(again.html).not.toMatch(/Write things in repositories <span class="muted">\(already allowed\)/);
    const back = await approveOnly(s, browser, again.html, ['repo:read', 'repo:write']);
    const fresh = await redeemed(again.request, back.url);
    expect(decodeJwt(fresh.access_token as string).scope).toBe('repo:read repo:write');

    // One grant per client and person: the old one's access and refresh tokens are refused now.
    await expect(mcp.authenticate(old.access_token as string)).rejects.toMatchObject({ name: 'AuthenticationError' });
    const r = await token(s.base, { grant_type: 'refresh_token', refresh_token: old.refresh_token as string, client_id: clientId });
    expect(r.body.error).toBe('invalid_grant');
    const grants = (await s.tokens.listByOwner('alice')).filter((t) => t.parentId === null && t.revokedAt === null);
    expect(grants.filter((g) => g.description?.includes(clientId))).toHaveLength(1);
  });

  it('a second browser: the new grant of the same client and person replaces the old one; another client keeps its grant', async () => {
    const { client_id: clientId } = await register(s.base);
    const { client_id: otherId } = await register(s.base);
    const laptop = new Browser();
    const first = await consentPageFor(s, laptop, clientId, 'repo:read');
    const old = await redeemed(first.request, (await approveOnly(s, laptop, first.html, ['repo:read'])).url);
    const other = await consentPageFor(s, laptop, otherId, 'repo:read');
    const kept = await redeemed(other.request, (await approveOnly(s, laptop, other.html, ['repo:read'])).url);

    // Another browser holds no earlier grant in its cookies: the replacement is by client and person.
    const desktop = new Browser();
    const again = await consentPageFor(s, desktop, clientId, 'repo:read');
    expect(again.url).toContain('/oauth/interaction/');
    const fresh = await redeemed(again.request, (await approveOnly(s, desktop, again.html, ['repo:read'])).url);

    expect((await mcp.authenticate(fresh.access_token as string)).userId).toBe('alice');
    await expect(mcp.authenticate(old.access_token as string)).rejects.toMatchObject({ name: 'AuthenticationError' });
    const r = await token(s.base, { grant_type: 'refresh_token', refresh_token: old.refresh_token as string, client_id: clientId });
    expect(r.body.error).toBe('invalid_grant');
    expect((await mcp.authenticate(kept.access_token as string)).userId).toBe('alice');
    const live = (await s.tokens.listByOwner('alice')).filter((t) => t.parentId === null && t.revokedAt === null);
    expect(live.filter((g) => g.description?.includes(`client ${clientId},`))).toHaveLength(1);
    expect(live.filter((g) => g.description?.includes(`client ${otherId},`))).toHaveLength(1);
  });

  it('nothing ticked: a clear page, nothing decided, and the person can still choose', async () => {
    const { client_id: clientId } = await register(s.base);
    const browser = new Browser();
    const { html, request } = await consentPageFor(s, browser, clientId, 'repo:read');
    const none = await approveOnly(s, browser, html, []);
    expect(none.res.status).toBe(400);
    const page = await none.res.text();
    expect(page).toContain('Tick at least one permission to allow, or choose Deny.');
    const back = await approveOnly(s, browser, page, ['repo:read']);
    expect(decodeJwt((await redeemed(request, back.url)).access_token as string).scope).toBe('repo:read');
  });
});

describe('a user with no access', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer({ signIn: { users: () => [] } });
  });
  afterAll(() => s.close());

  it('the consent page says the user has no access and leaves every permission unticked', async () => {
    const { client_id: clientId } = await register(s.base);
    const { html } = await consentPageFor(s, new Browser(), clientId, 'repo:read org:admin', 'carol');
    expect(html).toContain('have no access here');
    expect(html).toContain('your roles do not allow this');
    expect(html).not.toContain(' checked>');
  });

  it('a member sees which permissions their roles allow: bob (viewer) cannot administer', async () => {
    const { client_id: clientId } = await register(s.base);
    const { html } = await consentPageFor(s, new Browser(), clientId, 'repo:read org:admin', 'bob');
    expect(html).not.toContain('have no access here');
    expect(html).toContain('name="permission.repo:read" value="yes" checked');
    expect(html).toMatch(
      /name="permission\.org:admin" value="yes"> Administer organizations <span class="muted">\(your roles do not allow this/,
    );
  });
});
