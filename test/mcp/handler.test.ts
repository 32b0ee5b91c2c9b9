import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mcpHandlers, mcpPrincipal, protectedResourceMetadata, resourceMetadataUrl, type McpHandlerOptions } from '../../src/mcp';
import { MemoryTokenStore } from '../../src/stores';
import type { Auth } from '../../src/service';
import { testAuth, type TestAuth } from '../support/auth';
import { caught } from '../support/errors';

// Every resource takes DPoP-bound tokens with their proofs (RFC 9728 §2, RFC 9449).
const DPOP_METADATA = {
  dpop_signing_alg_values_supported: ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'],
  dpop_bound_access_tokens_required: false,
};

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

describe('mcpHandlers (fetch) (web-standard transport), driven by the SDK client', () => {
  let s: TestAuth;
  let token = '';
  beforeAll(async () => {
    s = await testAuth({ now: () => new Date() });
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    token = (await alice.token.create({ name: 'fetchy' })).token;
  });

  it('serves the SDK client in-process and refuses a token revoked between two calls', async () => {
    const h = mcpHandlers(options(s.auth, { resource: 'https://svc.test/mcp' }));
    const client = new Client({ name: 't', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL('https://svc.test/mcp'), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      fetch: (input, init) => h.mcp.fetch(new Request(input, init)),
    });
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined(); // stateless: no session another credential could take over
    expect(await client.callTool({ name: 'whoami', arguments: {} })).toMatchObject({ content: [{ text: 'alice' }] });
    await s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice'))).token.revoke('fetchy');
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toMatchObject({ code: 401 });
    await client.close();
  });

  it('401 without a header: no error attribute, resource_metadata of the configured resource', async () => {
    const h = mcpHandlers(options(s.auth, { resource: 'https://svc.test/api/mcp' }));
    const r = await h.mcp.fetch(new Request('http://internal:3000/mcp', { method: 'POST', body: '{}' }));
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer realm="svc", resource_metadata="https://svc.test/.well-known/oauth-protected-resource/api/mcp"',
    );
    expect(await r.json()).toMatchObject({ error: 'authentication', reason: 'missing' });
  });

  it('GET and DELETE are 405 (stateless) once authenticated; unauthenticated they are 401 first', async () => {
    const h = mcpHandlers(options(s.auth));
    const session = await s.auth.issueSession('bob');
    const get = await h.mcp.fetch(new Request('http://127.0.0.1:1/mcp', { headers: { authorization: `Bearer ${session}` } }));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await h.mcp.fetch(new Request('http://127.0.0.1:1/mcp', { method: 'DELETE' }))).status).toBe(401);
  });

  it('a token store outage is 503 and reaches onError; the client learns nothing of it', async () => {
    class Down extends MemoryTokenStore {
      override readChain(): never {
        throw new Error('db.internal unreachable');
      }
    }
    const broken = await testAuth({ tokens: new Down(), now: () => new Date() });
    const alice = broken.auth.client(await broken.auth.principalFor('alice')); // readChain fails: a session token could not be read
    const { token: t } = await alice.token.create({ name: 'x' });
    const seen: unknown[] = [];
    const h = mcpHandlers(options(broken.auth, { onError: (e) => seen.push(e) }));
    const r = await h.mcp.fetch(
      new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: { authorization: `Bearer ${t}` }, body: '{}' }),
    );
    expect(r.status).toBe(503);
    expect(await r.text()).not.toContain('db.internal');
    expect(seen).toHaveLength(1);
  });

  it('a hostile Host header never makes mcp() reject: a URL with a quote in its host is 400, not a rejection', async () => {
    const h = mcpHandlers(options(s.auth));
    const r = await h.mcp.fetch(new Request('http://a"b/mcp', { method: 'POST', body: '{}' }));
    expect(r.status).toBe(400);
    expect(r.headers.get('www-authenticate')).toBeNull();
    expect((await h.metadata.fetch(new Request('http://a"b/.well-known/oauth-protected-resource/mcp'))).status).toBe(400);
    // Not a Request at all (Hono's c.req instead of c.req.raw): a programming error, answered 500 all the same.
    expect((await h.mcp.fetch({} as Request)).status).toBe(500);
  });

  it('behind @hono/node-server, Host: a"b gets 400 and nothing on stderr (it was a 500 with a stack)', async () => {
    const { serve } = await import('@hono/node-server');
    const { request } = await import('node:http');
    const h = mcpHandlers(options(s.auth));
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    const srv = await new Promise<Server>((done) => {
      const x = serve({ fetch: (req: Request) => h.mcp.fetch(req), port: 0, hostname: '127.0.0.1' }, () => done(x as Server));
    });
    try {
      const port = (srv.address() as AddressInfo).port;
      const code = await new Promise<number | undefined>((done, fail) => {
        const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host: 'a"b' } }, (res) => {
          res.resume();
          done(res.statusCode);
        });
        req.on('error', fail);
        req.end('{}');
      });
      expect(code).toBe(400);
      expect(errors).toEqual([]);
    } finally {
      console.error = original;
      await new Promise<void>((done) => srv.close(() => done()));
    }
  });

  it('a throwing onError never turns an answer into a rejection', async () => {
    const h = mcpHandlers(
      options(s.auth, {
        server: () => {
          throw new Error('server factory broke');
        },
        onError: () => {
          throw new Error('logger broke too');
        },
      }),
    );
    const session = await s.auth.issueSession('alice');
    const r = await h.mcp.fetch(
      new Request('http://127.0.0.1:1/mcp', { method: 'POST', headers: { authorization: `Bearer ${session}` }, body: '{}' }),
    );
    expect(r.status).toBe(500);
    expect(await r.text()).not.toContain('broke');
  });

  it('metadata: derived from the request URL, listing authorization servers only when given', async () => {
    const dev = mcpHandlers(options(s.auth));
    const doc = await dev.metadata.fetch(new Request('http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp')).json();
    expect(doc).toEqual({ resource: 'http://127.0.0.1:9/mcp', bearer_methods_supported: ['header'], ...DPOP_METADATA });
    const prod = mcpHandlers(
      options(s.auth, { resource: 'https://svc.test/mcp', authorizationServers: ['https://login.svc.test'], resourceName: 'svc' }),
    );
    expect(await prod.metadata.fetch(new Request('http://x/.well-known/oauth-protected-resource/mcp')).json()).toEqual({
      resource: 'https://svc.test/mcp',
      // An issuer identifier exactly as given (RFC 8414 3.3: clients compare it character for character).
      authorization_servers: ['https://login.svc.test'],
      bearer_methods_supported: ['header'],
      resource_name: 'svc',
      ...DPOP_METADATA,
    });
  });
});

describe('mcpHandlers (node)', () => {
  let s: TestAuth;
  let server: Server;
  let base = '';
  beforeAll(async () => {
    s = await testAuth({ now: () => new Date() });
    const h = mcpHandlers(options(s.auth));
    server = createServer((req, res) => {
      if (req.url?.startsWith('/.well-known/')) h.metadata.node(req, res);
      else void h.mcp.node(req, res);
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

  it('a hostile Host header never makes mcp() reject: hosts no URL can hold are 400 without resource_metadata', async () => {
    // These passed the old syntax check, then broke `new URL()` inside the handler's own catch: mcp() rejected.
    const h = mcpHandlers(options(s.auth));
    const { request } = await import('node:http');
    const outcomes: unknown[] = [];
    const srv = createServer((req, res) => {
      const p = req.url?.startsWith('/.well-known/') ? Promise.resolve(h.metadata.node(req, res)) : h.mcp.node(req, res);
      outcomes.push(
        p.then(
          () => 'resolved',
          (e: unknown) => e,
        ),
      );
    });
    await new Promise<void>((done) => srv.listen(0, '127.0.0.1', done));
    const port = (srv.address() as AddressInfo).port;
    const send = (path: string, host: string): Promise<{ code: number | undefined; challenge: unknown }> =>
      new Promise((done, fail) => {
        const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { host } }, (res) => {
          res.resume();
          done({ code: res.statusCode, challenge: res.headers['www-authenticate'] });
        });
        req.on('error', fail);
        req.end('{}');
      });
    try {
      for (const host of ['127.0.0.1:99999', '[::::::]', '1.2.3.4.5', '256.1.1.1', 'a"b', 'x:1:2']) {
        expect(await send('/mcp', host), host).toEqual({ code: 400, challenge: undefined });
        expect(await send('/.well-known/oauth-protected-resource/mcp', host), host).toMatchObject({ code: 400 });
      }
      // An absolute-form request target is not a path to name in resource_metadata.
      expect(await send('http://evil.example/mcp', `127.0.0.1:${port}`)).toMatchObject({ code: 400 });
      expect(await Promise.all(outcomes)).toEqual(outcomes.map(() => 'resolved'));
    } finally {
      await new Promise<void>((done) => srv.close(() => done()));
    }
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
      expect(caught(() => mcpHandlers(o as McpHandlerOptions))).toMatchObject({ code: 'validation' });
    }
  });
});

describe('mcpHandlers (node) in Express, behind a JSON body parser and a mount path', () => {
  it('serves the SDK client with the parsed body, and names the mounted URL in the 401', async () => {
    const s = await testAuth({ now: () => new Date() });
    const h = mcpHandlers(options(s.auth));
    const api = express.Router();
    api.use(express.json());
    api.all('/mcp', h.mcp.node);
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
      ...DPOP_METADATA,
    });
  });
});
