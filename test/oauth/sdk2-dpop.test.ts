/**
 * The MCP SDK's 2.x client with DPoP (SEP-1932: its provider's `dpop()` hands a `DpopSession`)
 * against a real `svc serve` on loopback: discovery, registration, PKCE, a token bound to the
 * session's key, tools listed and called with proofs, then a refresh bound to the same key. The
 * person signs in and consents through the server's own pages over HTTP (support/oauth's
 * `signInAndConsent`), so the test needs no chromium. With the resource's nonces on (`svc serve
 * --dpop-nonce`), the client answers `use_dpop_nonce` once and signs every later proof with the
 * nonce the server hands out.
 */
import {
  Client,
  DpopSession,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { decodeJwt, decodeProtectedHeader } from 'jose';
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

/** fetch that keeps, for each /mcp request, its proof's claims and the answer's status, challenge and nonce. */
function proofRecorder(seen: { nonce: unknown; status: number; challenge: string | null; given: string | null }[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const dpop = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('dpop');
    if (url.pathname === '/mcp' && dpop !== null) {
      expect(decodeProtectedHeader(dpop).typ).toBe('dpop+jwt');
      seen.push({
        nonce: decodeJwt(dpop)['nonce'],
        status: res.status,
        challenge: res.headers.get('www-authenticate'),
        given: res.headers.get('dpop-nonce'),
      });
    }
    return res;
  };
}

describe('the MCP SDK 2.x client with DPoP against svc serve --dpop-nonce', () => {
  let dev: DevServer;
  beforeAll(async () => {
    dev = await startDevServer(undefined, { dpopNonce: true });
  });
  afterAll(() => dev.close());

  it('RFC 9449 §9: the first proof at /mcp is answered use_dpop_nonce with a nonce; the client signs again with it, and keeps it', async () => {
    const mcp = new URL(`${dev.base}/mcp`);
    const provider = new DpopProvider(httpPerson(dev.base), REDIRECT, 'sdk2-dpop-nonce');
    provider.session = await DpopSession.create({ alg: 'EdDSA' });
    const authProvider = provider as unknown as OAuthClientProvider;
    const first = new StreamableHTTPClientTransport(mcp, { authProvider });
    await expect(new Client({ name: 'sdk2-dpop-nonce', version: '2' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    await first.finishAuth(provider.params as URLSearchParams);
    expect(provider.saved?.token_type).toBe('DPoP');

    const seen: { nonce: unknown; status: number; challenge: string | null; given: string | null }[] = [];
    const client = new Client({ name: 'sdk2-dpop-nonce', version: '2' });
    await client.connect(new StreamableHTTPClientTransport(mcp, { authProvider, fetch: proofRecorder(seen) }));
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toMatchObject({ kind: 'session', user: 'alice' });
    await client.close();

    // The client keeps one nonce per origin: its first proof here carries the authorization server's (the
    // same origin, nonces of its own), which the resource does not take.
    const [asked, ...rest] = seen;
    expect(asked?.status).toBe(401);
    expect(asked?.challenge).toMatch(/^DPoP .*error="use_dpop_nonce"/);
    const nonce = asked?.given;
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(asked?.nonce).not.toBe(nonce);
    expect(rest.length).toBeGreaterThanOrEqual(2);
    for (const r of rest) expect(r).toMatchObject({ nonce, status: expect.any(Number), given: nonce });
    // Never refused again (a 405 to the SDK's optional GET stream is no refusal of the proof).
    expect(rest.filter((r) => r.status === 401)).toEqual([]);
  });
});
