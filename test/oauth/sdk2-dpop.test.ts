/**
 * The MCP SDK's 2.x client with DPoP (SEP-1932: its provider's `dpop()` hands a `DpopSession`)
 * against a real `svc serve` on loopback: discovery, registration, PKCE, a token bound to the
 * session's key, tools listed and called with proofs, then a refresh bound to the same key. The
 * person signs in and consents through the server's own pages over HTTP (support/oauth's
 * `signInAndConsent`), so the test needs no chromium.
 */
import {
  Client,
  DpopSession,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, REDIRECT, signInAndConsent } from '../support/oauth';
import { startDevServer, type DevServer } from '../support/dev-server';
import { BrowserProvider, recordingFetch, type Person, type Seen } from './sdk-person';

/** The step-up client of sdk2-client.test.ts, holding a DPoP key for its registration. */
class DpopProvider extends BrowserProvider {
  session: DpopSession | undefined;
  dpop(): DpopSession | undefined {
    return this.session;
  }
}

/** alice at the server's own sign-in and consent pages, over HTTP; the redirect carries the code. */
function httpPerson(base: string): Person {
  const browser = new Browser();
  return {
    async approve(url: URL) {
      const done = await signInAndConsent(browser, base, url.href);
      const params = new URL(done.url).searchParams;
      return { code: params.get('code') as string, params, consentText: done.consentHtml ?? '' };
    },
  } as unknown as Person;
}

describe('the MCP SDK 2.x client with DPoP against svc serve', () => {
  let dev: DevServer;
  let st: { url: string; callback: string; person: Person };
  beforeAll(async () => {
    dev = await startDevServer();
    st = { url: dev.base, callback: REDIRECT, person: httpPerson(dev.base) };
  });
  afterAll(() => dev.close());

  it('signs in with a bound token, lists and calls tools with proofs, and refreshes bound to the same key', async () => {
    const mcp = new URL(`${st.url}/mcp`);
    const seen: Seen[] = [];
    const provider = new DpopProvider(st.person, st.callback, 'sdk2-dpop');
    const session = await DpopSession.create({ alg: 'ES256' });
    provider.session = session;
    const authProvider = provider as unknown as OAuthClientProvider;
    const first = new StreamableHTTPClientTransport(mcp, { authProvider, fetch: recordingFetch(seen) });
    await expect(new Client({ name: 'sdk2-dpop', version: '2' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth(provider.params as URLSearchParams);
    expect(provider.saved?.token_type).toBe('DPoP');
    const claims = decodeJwt(provider.saved?.access_token as string);
    expect(claims).toMatchObject({ aud: `${st.url}/mcp`, sub: 'alice', cnf: { jkt: session.thumbprint } });

    const transport = new StreamableHTTPClientTransport(mcp, { authProvider, fetch: recordingFetch(seen) });
    const client = new Client({ name: 'sdk2-dpop', version: '2' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('whoami');
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    expect(who.structuredContent).toMatchObject({ kind: 'session', user: 'alice' });
    await client.close();
    expect(seen.filter((s) => s.status === 401)).toHaveLength(1);

    // The access token goes stale (here: replaced); the refresh token, bound to the same key, renews it.
    const before = provider.saved?.access_token;
    provider.saved = { ...(provider.saved as NonNullable<typeof provider.saved>), access_token: 'stale' };
    const again = new StreamableHTTPClientTransport(mcp, { authProvider, fetch: recordingFetch(seen) });
    const renewed = new Client({ name: 'sdk2-dpop', version: '2' });
    await renewed.connect(again);
    expect(provider.saved?.access_token).not.toBe(before);
    expect(decodeJwt(provider.saved?.access_token as string)).toMatchObject({ cnf: { jkt: session.thumbprint } });
    expect((await renewed.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({ user: 'alice' });
    await renewed.close();
    expect(provider.urls).toHaveLength(1);
  });
});
