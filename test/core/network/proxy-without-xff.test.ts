/**
 * Attack: a request from a trusted proxy that carries no `X-Forwarded-For`
 * was taken as coming from the proxy itself, so a token limited to the
 * proxy's range passed for whoever reached the proxy (a misconfigured route,
 * a second listener that does not add the header). The proxy named no client:
 * the client is unknown, and a token with `allowedIps` is refused (403,
 * reason `ip`) in every adapter and on `/mcp`; a token without `allowedIps`
 * passes as before. Over real loopback HTTP, 127.0.0.9 plays the proxy.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Auth } from 'svc-auth';
import { mcpHandlers } from 'svc-auth/mcp';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { adapters, closeServer, get } from '../../support/adapters';
import { testAuth } from '../../support/auth';

const PROXY = '127.0.0.9';

async function authWithTokens(): Promise<{ auth: Auth; proxyRange: string; office: string; plain: string }> {
  const { auth } = await testAuth({ everyone: { orgs: { acme: 'editor' } }, trustProxy: [`${PROXY}/32`] });
  const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
  // Limited to the proxy's own range: exactly what the proxy's address used to satisfy.
  const proxyRange = (await api.create({ name: 'proxy-range', allowedIps: [`${PROXY}/32`] })).token;
  const office = (await api.create({ name: 'office', allowedIps: ['127.0.0.2'] })).token;
  const plain = (await api.create({ name: 'plain' })).token;
  return { auth, proxyRange, office, plain };
}

describe.each(adapters)('a trusted proxy without X-Forwarded-For in %s', (_name, start) => {
  let t: Awaited<ReturnType<typeof authWithTokens>>;
  let server: { port: number; stop: () => Promise<void> };
  beforeAll(async () => {
    t = await authWithTokens();
    server = await start(t.auth);
  });
  afterAll(() => server.stop());

  it('a token limited to the proxy’s range is refused (403, reason ip): the client is unknown, not the proxy', async () => {
    const refused = await get(server.port, PROXY, t.proxyRange);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden', reason: 'ip' });
    // An empty header names nobody either.
    expect((await get(server.port, PROXY, t.proxyRange, { 'x-forwarded-for': '' })).body.reason).toBe('ip');
  });

  it('a token without allowedIps passes as before; a client the proxy names is still believed', async () => {
    expect(await get(server.port, PROXY, t.plain)).toEqual({ status: 200, body: { user: 'alice' } });
    expect((await get(server.port, PROXY, t.office, { 'x-forwarded-for': '127.0.0.2' })).status).toBe(200);
    // A direct client (not a trusted proxy) is still its own address.
    expect((await get(server.port, '127.0.0.2', t.office)).status).toBe(200);
  });
});

describe('a trusted proxy without X-Forwarded-For on /mcp', () => {
  let t: Awaited<ReturnType<typeof authWithTokens>>;
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    t = await authWithTokens();
    const h = mcpHandlers({ auth: t.auth, server: () => new McpServer({ name: 't', version: '1' }) });
    server = createServer((req, res) => void h.mcp.node(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => closeServer(server));

  /** POST /mcp from `from` with `token`: the status and JSON body of the answer. */
  function post(from: string, token: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          localAddress: from,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            let body: unknown;
            try {
              body = JSON.parse(text);
            } catch {
              body = text;
            }
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    });
  }

  it('a token limited to the proxy’s range is refused (403, reason ip); one without allowedIps gets past authentication', async () => {
    const refused = await post(PROXY, t.proxyRange);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden', reason: 'ip' });
    const plain = await post(PROXY, t.plain);
    expect([401, 403]).not.toContain(plain.status);
    const named = await post(PROXY, t.office, { 'x-forwarded-for': '127.0.0.2' });
    expect([401, 403]).not.toContain(named.status);
  });
});
