import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PERMISSIONS } from '../../src/core/vocabulary';
import { exited, serve, svc, tempHome } from '../cli/helpers';
import { DATABASE_URL, describeWithDb } from '../support/postgres';
import { approve, authorize, Browser, formOf, redeem, register } from '../support/oauth';

describe('svc serve is an authorization server: issuer = its base URL', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  let running: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
    expect((await svc(home, ['member', 'set', '--user', 'bob', '--resource', 'acme/web', '--role', 'viewer'])).code).toBe(0);
    running = await serve(home);
  });
  afterAll(async () => {
    running.child.kill('SIGTERM');
    await exited(running.child);
    await cleanup();
  });

  it('prints only the base URL and the notice on stdout (the oidc-provider runtime warning goes to stderr)', () => {
    expect(running.firstLine).toBe(running.url);
    expect(running.stderr()).not.toMatch(/OAuth is off/);
  });

  it('serves RFC 8414 metadata with the issuer = the base URL, and /mcp metadata lists it', async () => {
    const meta = (await (await fetch(`${running.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: running.url,
      registration_endpoint: `${running.url}/oauth/register`,
      client_id_metadata_document_supported: true,
      scopes_supported: [...PERMISSIONS],
      code_challenge_methods_supported: ['S256'],
    });
    const prm = (await (await fetch(`${running.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: `${running.url}/mcp`, authorization_servers: [running.url] });
  });

  it('a person signs in by picking a member on the page and approves: the token is for alice, with the approved scope', async () => {
    const client = await register(running.url, { client_name: 'Claude' });
    const request = authorize(running.url, client.client_id);
    const browser = new Browser();
    const page = await browser.walk(request.url, running.url);
    const html = await page.res.text();
    expect(html).toContain('<option value="alice">alice</option>');
    expect(html).toContain('<option value="bob">bob</option>');
    const login = formOf(html, running.url);
    const consent = await browser.submit(login.action, { ...login.hidden, user: 'alice' }, running.url);
    const form = formOf(await consent.res.text(), running.url);
    const back = await browser.submit(form.action, { ...form.hidden, decision: 'approve' }, running.url);
    const r = await redeem(request, new URL(back.url).searchParams.get('code') as string);
    expect(r.status).toBe(200);
    expect(decodeJwt(r.body.access_token as string)).toMatchObject({
      iss: running.url,
      sub: 'alice',
      aud: `${running.url}/mcp`,
      scope: 'repo:read',
    });
    expect(running.stderr()).toMatch(/GET \/oauth\/authorize \d+ .*reason=oauth/);
  });

  it('own-JWKS fetch: its resources accept its tokens with keys handed over in process, GET /oauth/jwks never requested', async () => {
    const client = await register(running.url, { client_name: 'Script' });
    const request = authorize(running.url, client.client_id, { resource: running.url });
    const { code } = await approve(request);
    const r = await redeem(request, code as string);
    expect(r.status).toBe(200);
    const who = await fetch(`${running.url}/api/whoami`, { headers: { authorization: `Bearer ${r.body.access_token as string}` } });
    expect(who.status).toBe(200);
    expect(await who.json()).toMatchObject({ user: 'alice' });
    // The log has one line per request, in order: once whoami's is in, a JWKS fetch before it would be too.
    await vi.waitFor(() => expect(running.stderr()).toMatch(/GET \/api\/whoami 200/));
    expect(running.stderr()).not.toMatch(/\/oauth\/jwks/);
  });

  it('keeps its state in SVC_HOME/oauth.json (mode 0600): the keys survive a restart', async () => {
    const file = await stat(join(home, 'oauth.json'));
    expect(file.mode & 0o777).toBe(0o600);
    const before = (await (await fetch(`${running.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    const again = await serve(home);
    try {
      const after = (await (await fetch(`${again.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
      expect(after.keys.map((k) => k.kid)).toEqual(before.keys.map((k) => k.kid));
    } finally {
      again.child.kill('SIGTERM');
      await exited(again.child);
    }
  });
});

describeWithDb(
  'svc serve with SVC_DATABASE_URL',
  'PostgreSQL svc serve OAuth test',
  'test/oauth/serve.test.ts',
)('svc serve with SVC_DATABASE_URL keeps the authorization server in the database', () => {
  it('two svc serve processes on one database sign with the same key', async () => {
    const a = await tempHome();
    const b = await tempHome();
    const env = { SVC_DATABASE_URL: DATABASE_URL as string };
    const one = await serve(a.home, env);
    const two = await serve(b.home, env);
    try {
      const kids = async (url: string): Promise<string[]> =>
        ((await (await fetch(`${url}/oauth/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
      expect(await kids(two.url)).toEqual(await kids(one.url));
      expect(one.stderr()).not.toMatch(/OAuth is off/);
    } finally {
      for (const s of [one, two]) {
        s.child.kill('SIGTERM');
        await exited(s.child);
      }
      await a.cleanup();
      await b.cleanup();
    }
  });
});
