/**
 * Attack: behind `svc serve --trust-proxy`, the leak endpoint's rate limit
 * counted the socket's address, the proxy's, so one client's 61 requests
 * blocked every other reporter for an hour. It counts the address
 * `allowedIps` sees: the client the trusted proxies name. Over real loopback
 * HTTP (127.0.0.9 plays the proxy), against the dev server `svc serve` runs,
 * and against both forms of the handler.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevServer, openInstance } from '../../src/app/dev';
import type { ReferenceServer } from '../../src/app/server';
import { credentialRevocationHandler } from '../../src/leaks';
import { tempHome } from '../cli/helpers';
import { testAuth } from '../support/auth';

const PROXY = '127.0.0.9';

/** POST an empty report to `url` from the local address `from`: the status. */
function report(url: string, from: string, headers: Record<string, string> = {}): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end('{"credentials":[]}');
  });
}

describe('svc serve --trust-proxy: the leak endpoint counts the client, not the proxy', () => {
  let server: ReferenceServer;
  let url = '';
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const home = await tempHome();
    cleanup = home.cleanup;
    const dev = await openInstance({ SVC_HOME: home.home }, { trustProxy: [`${PROXY}/32`] });
    server = await createDevServer({ instance: dev, oauth: false, expirySweep: false });
    url = `${await server.listen({ port: 0 })}/api/credentials/revoke`;
  });
  afterAll(async () => {
    await server.close();
    await cleanup();
  });

  it('one client’s 61 requests through the proxy block that client only; another reporter behind it still gets 202', async () => {
    for (let i = 0; i < 60; i++) expect(await report(url, PROXY, { 'x-forwarded-for': '203.0.113.1' })).toBe(202);
    expect(await report(url, PROXY, { 'x-forwarded-for': '203.0.113.1' })).toBe(429);
    expect(await report(url, PROXY, { 'x-forwarded-for': '203.0.113.2' })).toBe(202);
    // The client put a lie first; the proxy appended the truth: counted as the blocked client.
    expect(await report(url, PROXY, { 'x-forwarded-for': '203.0.113.2, 203.0.113.1' })).toBe(429);
  });

  it('a direct client cannot escape its limit with an X-Forwarded-For of its own (spoofing)', async () => {
    for (let i = 0; i < 60; i++) expect(await report(url, '127.0.0.3', { 'x-forwarded-for': `198.51.100.${i}` })).toBe(202);
    expect(await report(url, '127.0.0.3', { 'x-forwarded-for': '198.51.100.200' })).toBe(429);
  });
});

describe('credentialRevocationHandler counts the address allowedIps sees', () => {
  it('the fetch form: the peer it is given, then the client a trusted proxy names', async () => {
    const { auth } = await testAuth({ everyone: {}, trustProxy: ['10.0.0.0/8'] });
    const h = credentialRevocationHandler(auth, { rateLimit: { requests: 1, windowMs: 60_000 } });
    const post = (xff?: string): Request =>
      new Request('http://svc.test/api/credentials/revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(xff === undefined ? {} : { 'x-forwarded-for': xff }) },
        body: '{"credentials":[]}',
      });
    expect((await h.fetch(post('203.0.113.1'), { clientAddress: '10.0.0.5' })).status).toBe(202);
    expect((await h.fetch(post('203.0.113.1'), { clientAddress: '10.0.0.6' })).status).toBe(429);
    expect((await h.fetch(post('203.0.113.2'), { clientAddress: '10.0.0.5' })).status).toBe(202);
    // An untrusted peer's header is never read: it is counted as itself.
    expect((await h.fetch(post('203.0.113.3'), { clientAddress: '198.51.100.7' })).status).toBe(202);
    expect((await h.fetch(post('203.0.113.4'), { clientAddress: '198.51.100.7' })).status).toBe(429);
  });
});
