/**
 * Your own words on your own pages (issue 28): a platform called "Acme
 * Notes" shows its name, logo, colour and its own text for each permission,
 * never "repositories" it does not have. The options are checked when the
 * server is built, the texts are escaped, and the pages' CSP still matches
 * the stylesheet (its hash) and allows the logo's origin only.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { createAuthorizationServer, MemoryOAuthStorage } from '../../src/entries/oauth';
import { authorize, Browser, formOf, register, type Running, startServer } from '../support/oauth';

const LOOK = {
  logoUrl: 'https://cdn.acme.example/notes.svg',
  colour: '#0A7D4F',
  permissionText: { 'repo:read': 'Read your notebooks <and> the notes in them', 'repo:write': 'Write notes' },
};

describe('the pages in your own words', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer({ name: 'Acme Notes', pages: LOOK });
  });
  afterAll(() => s.close());

  it('the consent page shows the product name, logo, colour and permission texts (escaped), and its CSP matches', async () => {
    const { client_id: clientId } = await register(s.base);
    const browser = new Browser();
    const { url } = authorize(s.base, clientId, { scope: 'repo:read repo:write' });
    const first = await browser.walk(url, s.base);
    const login = formOf(await first.res.text(), s.base);
    const step = await browser.submit(login.action, { ...login.hidden, user: 'alice' }, s.base);
    const html = await step.res.text();
    expect(html).toContain('<title>Allow Test Client? · Acme Notes</title>');
    expect(html).toContain('<img class="logo" src="https://cdn.acme.example/notes.svg" alt="">');
    expect(html).toContain('Read your notebooks &lt;and&gt; the notes in them');
    expect(html).toContain('Write notes');
    expect(html).not.toContain('repositories');
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] as string;
    expect(css).toContain('--accent:#0a7d4f');
    const csp = step.res.headers.get('content-security-policy') as string;
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(css).digest('base64')}'`);
    expect(csp).toContain("img-src 'self' https://cdn.acme.example;");
    expect(csp).not.toMatch(/script-src/);
  });

  it('the error pages and the device pages have the same look and headers', async () => {
    const res = await fetch(`${s.base}/oauth/device`);
    const html = await res.text();
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] as string;
    expect(html).toContain('Acme Notes');
    expect(res.headers.get('content-security-policy')).toContain(createHash('sha256').update(css).digest('base64'));
  });
});

describe('the pages option is checked when the server is built', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());
  const build = async (pages: unknown): Promise<unknown> =>
    createAuthorizationServer({
      auth: s.auth,
      issuer: 'http://127.0.0.1:1',
      signIn: { users: () => ['alice'] },
      storage: new MemoryOAuthStorage(),
      pages: pages as never,
    }).catch((err: unknown) => err);

  for (const [what, pages, path] of [
    ['a javascript: logo', { logoUrl: 'javascript:alert(1)' }, 'pages.logoUrl'],
    ['an http logo on a public host', { logoUrl: 'http://cdn.acme.example/a.svg' }, 'pages.logoUrl'],
    ['a colour that is not hex', { colour: 'red;}body{display:none' }, 'pages.colour'],
    ['a permission text of 121 characters', { permissionText: { 'repo:read': 'x'.repeat(121) } }, 'pages.permissionText.repo:read'],
    ['a permission text with a line break', { permissionText: { 'org:read': 'a\nb' } }, 'pages.permissionText.org:read'],
    ['a text for an unknown permission', { permissionText: { 'repo:delete': 'Delete' } }, 'pages.permissionText.repo:delete'],
    ['an unknown key', { font: 'Comic Sans' }, 'pages.font'],
  ] as const) {
    it(`refuses ${what}`, async () => {
      const err = await build(pages);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues.map((i) => i.path.join('.'))).toContain(path);
    });
  }

  it('accepts a loopback http logo and a three-digit colour', async () => {
    const server = await build({ logoUrl: 'http://127.0.0.1:8080/logo.png', colour: '#fa0' });
    expect(server).not.toBeInstanceOf(Error);
  });
});
