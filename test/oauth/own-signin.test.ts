import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, Browser, formOf, redeem, register, type Running, startServer } from '../support/oauth';

/** The application's own login: a cookie `app_user` names the signed-in user (an app would sign it). */
const currentUser = (req: { headers: { cookie?: string | undefined } }): string | undefined =>
  /(?:^|; )app_user=([a-z]+)/.exec(req.headers.cookie ?? '')?.[1];

describe('sign-in by the application’s own login (currentUser + loginUrl)', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer({ signIn: { currentUser, loginUrl: (returnTo) => `/login?next=${encodeURIComponent(returnTo)}` } });
  });
  afterAll(() => s.close());

  it('a browser that is not signed in goes to the app’s login and comes back to the consent page', async () => {
    const client = await register(s.base);
    const request = authorize(s.base, client.client_id);
    const browser = new Browser();
    const first = await browser.walk(request.url, s.base);
    expect(new URL(first.url).pathname).toBe('/login');
    const returnTo = new URL(first.url).searchParams.get('next') as string;
    // A path on this server, not a URL: a login that returns only to its own paths accepts it.
    expect(returnTo).toMatch(/^\/oauth\/interaction\/[\w-]+$/);
    // The app signs the person in (its own cookie), then sends the browser back.
    browser.jar.set('app_user', 'bob');
    const consent = await browser.walk(new URL(returnTo, s.base).href, s.base);
    const html = await consent.res.text();
    expect(html).toContain('<strong>bob</strong>');
    const form = formOf(html, s.base);
    const back = await browser.submit(form.action, { ...form.hidden, decision: 'approve' }, s.base);
    const r = await redeem(request, new URL(back.url).searchParams.get('code') as string);
    expect(r.status).toBe(200);
  });

  it('a user id the app reports that no user id can be is refused: an error page, a log line, nothing granted', async () => {
    const odd = await startServer({ signIn: { currentUser: () => 'a b', loginUrl: () => '/login' } });
    try {
      const client = await register(odd.base);
      const { url } = authorize(odd.base, client.client_id, { resource: undefined });
      const { res, url: at } = await new Browser().walk(url, odd.base);
      expect(at.startsWith(odd.base)).toBe(true);
      expect(res.status).toBe(500);
      expect(await res.text()).toContain('Something went wrong on this server');
      expect(odd.logs.join('\n')).toMatch(/server_error/);
    } finally {
      await odd.close();
    }
  });
});
