import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  mcpFetchHandlers,
  mcpNodeHandlers,
  mcpPrincipal,
  protectedResourceMetadata,
  resourceMetadataUrl,
  type McpHandlerOptions,
} from '../../src/mcp';
import { MemoryTokenStore } from '../../src/stores/memory';
import type { Auth } from '../../src/service/types';
import { setup, type Setup } from '../service/fixture';
import { caught } from '../support/errors';

function whoamiServer(): McpServer {
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('whoami', { inputSchema: {} }, (_a, extra) => ({
    content: [{ type: 'text', text: mcpPrincipal(extra.authInfo).userId }],
  }));
  return server;
}
const options = (auth: Auth, extra: Partial<McpHandlerOptions> = {}): McpHandlerOptions => ({
  auth,
  server: () => whoamiServer(),
  ...extra,
});

describe('mcpFetchHandlers (web-standard transport), driven by the SDK client', () => {
  let s: Setup;
  let token = '';
  beforeAll(async () => {
    s = await setup({ now: () => new Date() });
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    token = (await alice.token.create({ name: 'fetchy' })).token;
  });

  it('serves the SDK client in-process and refuses a token revoked between two calls', async () => {
    const h = mcpFetchHandlers(options(s.auth, { resource: 'https://svc.test/mcp' }));
    const client = new Client({ name: 't', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL('https://svc.test/mcp'), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      fetch: (input, init) => h.mcp(new Request(input, init)),
    });
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined(); // stateless: no session another credential could take over
    expect(await client.callTool({ name: 'whoami', arguments: {} })).toMatchObject({ content: [{ text: 'alice' }] });
    await s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice'))).token.revoke('fetchy');
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toMatchObject({ code: 401 });
    await client.close();
  });

  it('401 without a header: no error attribute, resource_metadata of the configured resource', async () => {
    const h = mcpFetchHandlers(options(s.auth, { resource: 'https://svc.test/api/mcp' }));
    const r = await h.mcp(new Request('http://internal:3000/mcp', { method: 'POST', body: '{}' }));
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer realm="svc", resource_metadata="https://svc.test/.well-known/oauth-protected-resource/api/mcp"',
    );
    expect(await r.json()).toMatchObject({ error: 'authentication', reason: 'missing' });
  });

  it('GET and DELETE are 405 (stateless) once authenticated; unauthenticated they are 401 first', async () => {
    const h = mcpFetchHandlers(options(s.auth));
    const session = await s.auth.issueSession('bob');
    const get = await h.mcp(new Request('http://127.0.0.1:1/mcp', { headers: { authorization: `Bearer ${session}` } }));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await h.mcp(new Request('http://127.0.0.1:1/mcp', { method: 'DELETE' }))).status).toBe(401);
  });

  it('a token store outage is 503 and reaches onError; the client learns nothing of it', async () => {
    class Down extends MemoryTokenStore {
      override readChain(): never {
        throw new Error('db.internal unreachable');
      }
    }
    const broken = await setup({ tokens: new Down(), now: () => new Date() });
    const alice = broken.auth.client(await broken.auth.authenticate(await broken.auth.issueSession('alice')));
    const { token: t } = await alice.token.create({ name: 'x' });
    const seen: unknown[] = [];
    const h = mcpFetchHandlers(options(broken.auth, { onError: (e) => seen.push(e) }));
    const r = await h.mcp(new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: { authorization: `Bearer ${t}` }, body: '{}' }));
    expect(r.status).toBe(503);
    expect(await r.text()).not.toContain('db.internal');
    expect(seen).toHaveLength(1);
  });

  it('metadata: derived from the request URL, listing authorization servers only when given', async () => {
    const dev = mcpFetchHandlers(options(s.auth));
    const doc = await dev.metadata(new Request('http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp')).json();
    expect(doc).toEqual({ resource: 'http://127.0.0.1:9/mcp', bearer_methods_supported: ['header'] });
    const prod = mcpFetchHandlers(
      options(s.auth, { resource: 'https://svc.test/mcp', authorizationServers: ['https://login.svc.test'], resourceName: 'svc' }),
    );
    expect(await prod.metadata(new Request('http://x/.well-known/oauth-protected-resource/mcp')).json()).toEqual({
      resource: 'https://svc.test/mcp',
      authorization_servers: ['https://login.svc.test/'],
      bearer_methods_supported: ['header'],
      resource_name: 'svc',
    });
  });
});

describe('mcpNodeHandlers', () => {
  let s: Setup;
  let server: Server;
  let base = '';
  beforeAll(async () => {
    s = await setup({ now: () => new Date() });
    const h = mcpNodeHandlers(options(s.auth));
    server = createServer((req, res) => {
      if (req.url?.startsWith('/.well-known/')) h.metadata(req, res);
      else void h.mcp(req, res);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('serves the SDK client over node:http with a session credential', async () => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${await s.auth.issueSession('bob')}` } },
      }),
    );
    expect(await client.callTool({ name: 'whoami', arguments: {} })).toMatchObject({ content: [{ text: 'bob' }] });
    await client.close();
  });

  it('header injection via Host: a Host that is not a host name is refused (400), never echoed into WWW-Authenticate', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<{ code: number | undefined; challenge: string | undefined }>((done, fail) => {
      const req = request(`${base}/mcp`, { method: 'POST', headers: { host: 'evil", error="x' } }, (res) => {
        res.resume();
        done({ code: res.statusCode, challenge: res.headers['www-authenticate'] as string | undefined });
      });
      req.on('error', fail);
      req.end('{}');
    });
    expect(status.code).toBe(400);
    expect(status.challenge).toBeUndefined();
  });

  it('a malformed Authorization header is 401 invalid_token with resource_metadata from the request', async () => {
    const r = await fetch(`${base}/mcp?x=1`, { method: 'POST', headers: { authorization: 'Basic abc' }, body: '{}' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(
      new RegExp(
        `^Bearer realm="svc", error="invalid_token", error_description="[^"]+", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"$`,
      ),
    );
  });

  it('options are checked when the handlers are built', () => {
    const bad: unknown[] = [
      undefined,
      { auth: {}, server: () => whoamiServer() },
      { auth: s.auth },
      { auth: s.auth, server: () => whoamiServer(), resource: 'mcp' },
      { auth: s.auth, server: () => whoamiServer(), authorizationServers: ['javascript:alert(1)'] },
      { auth: s.auth, server: () => whoamiServer(), sessions: true },
    ];
    for (const o of bad) {
      expect(caught(() => mcpNodeHandlers(o as McpHandlerOptions))).toMatchObject({ code: 'validation' });
    }
  });
});

describe('mcpNodeHandlers in Express, behind a JSON body parser and a mount path', () => {
  it('serves the SDK client with the parsed body, and names the mounted URL in the 401', async () => {
    const s = await setup({ now: () => new Date() });
    const h = mcpNodeHandlers(options(s.auth));
    const api = express.Router();
    api.use(express.json());
    api.all('/mcp', (req, res) => void h.mcp(req, res, req.body));
    const app = express();
    app.use('/api', api);
    const srv = await new Promise<Server>((done) => {
      const x = app.listen(0, '127.0.0.1', () => done(x));
    });
    try {
      const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
      const client = new Client({ name: 't', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${await s.auth.issueSession('alice')}` } },
        }),
      );
      expect(await client.callTool({ name: 'whoami', arguments: {} })).toMatchObject({ content: [{ text: 'alice' }] });
      await client.close();
      const r = await fetch(`${base}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(r.headers.get('www-authenticate')).toBe(
        `Bearer realm="svc", resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`,
      );
    } finally {
      await new Promise<void>((done) => srv.close(() => done()));
    }
  });
});

describe('protected resource metadata helpers', () => {
  it('resourceMetadataUrl puts the well-known prefix between host and path (RFC 9728 3.1)', () => {
    expect(resourceMetadataUrl('http://127.0.0.1:8080/mcp')).toBe('http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp');
    expect(resourceMetadataUrl('https://svc.example/')).toBe('https://svc.example/.well-known/oauth-protected-resource');
    expect(() => resourceMetadataUrl('/mcp')).toThrow(expect.objectContaining({ code: 'validation' }));
  });

  it('a dev instance without OAuth lists no authorization server', () => {
    expect(protectedResourceMetadata({ resource: 'http://127.0.0.1:8080/mcp', authorizationServers: [] })).toEqual({
      resource: 'http://127.0.0.1:8080/mcp',
      bearer_methods_supported: ['header'],
    });
  });
});
