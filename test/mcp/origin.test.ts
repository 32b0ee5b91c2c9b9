/**
 * The `Origin` check of the MCP handlers (MCP transport security: servers
 * MUST validate `Origin` against DNS rebinding; an invalid one is a 403).
 * A browser always sends `Origin` on a POST; other clients send none.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mcpHandlers, type McpHandlers, type McpHandlerOptions } from '../../src/mcp';
import type { Auth } from '../../src/service';
import { testAuth } from '../support/auth';
import { caught } from '../support/errors';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const options = (auth: Auth, extra: Partial<McpHandlerOptions> = {}): McpHandlerOptions => ({
  auth,
  server: () => new McpServer({ name: 't', version: '1' }),
  ...extra,
});

describe('Origin check of mcpHandlers (fetch)', () => {
  let auth: Auth;
  let bearer = '';
  beforeAll(async () => {
    auth = (await testAuth({ now: () => new Date() })).auth;
    bearer = `Bearer ${await auth.issueSession('alice')}`;
  });
  const post = (h: McpHandlers, url: string, origin?: string, token = bearer): Promise<Response> =>
    h.mcp.fetch(
      new Request(url, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...(token === '' ? {} : { authorization: token }), ...(origin === undefined ? {} : { origin }) },
        body: INITIALIZE,
      }),
    );

  it('DNS rebinding: a page on a rebound name (Host and Origin both evil.example) gets 403, token or not', async () => {
    const h = mcpHandlers(options(auth));
    const r = await post(h, 'http://evil.example:8080/mcp', 'http://evil.example:8080');
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ error: 'forbidden' });
    expect(r.headers.get('www-authenticate')).toBeNull();
    // Refused before the credential is read: the page learns nothing about a token it holds or lacks.
    expect((await post(h, 'http://evil.example:8080/mcp', 'http://evil.example:8080', '')).status).toBe(403);
  });

  it('DNS rebinding: a DNS name in Host is never trusted as the endpoint own origin without configuration', async () => {
    const h = mcpHandlers(options(auth));
    expect((await post(h, 'http://mcp.corp.example/mcp', 'http://mcp.corp.example')).status).toBe(403);
    // Configured, the same name is the endpoint's own.
    const prod = mcpHandlers(options(auth, { resource: 'http://mcp.corp.example/mcp' }));
    expect((await post(prod, 'http://mcp.corp.example/mcp', 'http://mcp.corp.example')).status).toBe(200);
  });

  it('cross-origin page: Origin http://evil.example against the real host gets 403', async () => {
    const h = mcpHandlers(options(auth));
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'http://evil.example')).status).toBe(403);
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'http://127.0.0.1:8081')).status).toBe(403);
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'https://127.0.0.1:8080')).status).toBe(403);
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'http://localhost:8080')).status).toBe(403);
  });

  it('Origin values that are not an origin are refused: null, empty, two joined, a path, another scheme', async () => {
    const h = mcpHandlers(options(auth));
    for (const origin of [
      'null',
      '',
      'http://127.0.0.1:8080, http://evil.example',
      'file://',
      'chrome-extension://abc',
      'x'.repeat(5000),
    ]) {
      expect((await post(h, 'http://127.0.0.1:8080/mcp', origin)).status, origin.slice(0, 40)).toBe(403);
    }
  });

  it('no Origin (every non-browser client) and the endpoint own origin on an IP or localhost host are served', async () => {
    const h = mcpHandlers(options(auth));
    expect((await post(h, 'http://127.0.0.1:8080/mcp')).status).toBe(200);
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'http://127.0.0.1:8080')).status).toBe(200);
    expect((await post(h, 'http://[::1]:8080/mcp', 'http://[::1]:8080')).status).toBe(200);
    expect((await post(h, 'http://localhost:8080/mcp', 'http://localhost:8080')).status).toBe(200);
  });

  it('allowedOrigins admits the listed origins (normalized) and nothing else', async () => {
    const h = mcpHandlers(options(auth, { allowedOrigins: ['https://App.Example/', new URL('http://localhost:6274')] }));
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'https://app.example')).status).toBe(200);
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'http://localhost:6274')).status).toBe(200);
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'https://app.example:8443')).status).toBe(403);
    expect((await post(h, 'http://127.0.0.1:8080/mcp', 'https://evil.app.example')).status).toBe(403);
  });

  it('with a configured resource, its origin is the own one; the internal Host origin is not', async () => {
    const h = mcpHandlers(options(auth, { resource: 'https://svc.example/mcp' }));
    expect((await post(h, 'http://10.0.0.5:3000/mcp', 'https://svc.example')).status).toBe(200);
    expect((await post(h, 'http://10.0.0.5:3000/mcp', 'http://10.0.0.5:3000')).status).toBe(403);
  });

  it('allowedOrigins is checked when the handlers are built: origins only, no wildcard, unknown keys refused', () => {
    const bad: unknown[] = [
      ['*'],
      ['null'],
      ['https://app.example/path'],
      ['ftp://app.example'],
      ['https://user@app.example'],
      ['app.example'],
      [42],
      'https://app.example',
      Array.from({ length: 101 }, (_, i) => `https://a${i}.example`),
    ];
    for (const allowedOrigins of bad) {
      expect(
        caught(() => mcpHandlers(options(auth, { allowedOrigins } as never))),
        JSON.stringify(allowedOrigins).slice(0, 60),
      ).toMatchObject({
        code: 'validation',
        issues: [expect.objectContaining({ path: expect.arrayContaining(['allowedOrigins']) })],
      });
    }
    expect(caught(() => mcpHandlers({ ...options(auth), allowedOrigin: ['https://app.example'] } as never))).toMatchObject({
      code: 'validation',
    });
  });
});

describe('Origin check of mcpHandlers (node), over real HTTP', () => {
  let server: Server;
  let port = 0;
  let bearer = '';
  beforeAll(async () => {
    const { auth } = await testAuth({ now: () => new Date() });
    bearer = `Bearer ${await auth.issueSession('alice')}`;
    const h = mcpHandlers(options(auth));
    server = createServer((req, res) => void h.mcp.node(req, res));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const post = (headers: Record<string, string>): Promise<number | undefined> =>
    new Promise((done, fail) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, authorization: bearer, ...headers } },
        (res) => {
          res.resume();
          done(res.statusCode);
        },
      );
      req.on('error', fail);
      req.end(INITIALIZE);
    });

  it('DNS rebinding: Host and Origin both name the rebound domain: 403', async () => {
    expect(await post({ host: `evil.example:${port}`, origin: `http://evil.example:${port}` })).toBe(403);
  });

  it('cross-origin page on the real host: 403; same origin and no Origin: 200', async () => {
    expect(await post({ origin: 'http://evil.example' })).toBe(403);
    expect(await post({ origin: `http://127.0.0.1:${port}` })).toBe(200);
    expect(await post({})).toBe(200);
  });
});
