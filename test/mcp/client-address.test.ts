/**
 * The /mcp handlers pass the client address: over real loopback HTTP, the
 * official SDK client (its requests sent from 127.0.0.2 or 127.0.0.3) can use
 * a token limited to 127.0.0.2 from there only, through the node handlers (the
 * socket) and the fetch handlers (`clientAddress`); the SDK's own bearer
 * middleware, which hands the verifier no request, refuses such a token (403).
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mcpHandlers, mcpPrincipal, mcpTokenVerifier } from '../../src/mcp';
import { testAuth, type TestAuth } from '../support/auth';
import { caught } from '../support/errors';

function whoamiServer(): McpServer {
  const server = new McpServer({ name: 't', version: '1' });
  server.registerTool('whoami', { inputSchema: {} }, (_a, extra) => ({
    content: [{ type: 'text', text: mcpPrincipal(extra.authInfo).userId }],
  }));
  return server;
}

/** A fetch for the SDK client whose requests leave from the local address `from` (loopback). */
function fetchFrom(from: string): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const body = req.body === null ? undefined : Buffer.from(await req.arrayBuffer());
    return new Promise<Response>((resolve, reject) => {
      const out = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: req.method,
          localAddress: from,
          headers: Object.fromEntries(req.headers),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
            const status = res.statusCode ?? 500;
            resolve(new Response(status === 202 || status === 204 ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      out.on('error', reject);
      out.end(body);
    });
  };
}

async function whoami(url: string, token: string, from: string): Promise<string> {
  const client = new Client({ name: 't', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: fetchFrom(from),
  });
  try {
    await client.connect(transport);
    const r = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
    return r.content[0]?.text ?? '';
  } finally {
    await client.close().catch(() => undefined);
  }
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)),
  );
}

async function stop(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describe('the /mcp handlers pass the client address', () => {
  let s: TestAuth;
  let office = '';
  const servers: Server[] = [];
  beforeAll(async () => {
    s = await testAuth({ now: () => new Date() });
    const api = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice'))).token;
    office = (await api.create({ name: 'office', allowedIps: ['127.0.0.2/32'] })).token;
  });
  afterAll(async () => {
    await Promise.all(servers.map(stop));
  });

  it('mcpHandlers (node): the socket peer; 403 (reason ip) from elsewhere, before any MCP is served', async () => {
    const h = mcpHandlers({ auth: s.auth, server: () => whoamiServer() });
    const server = createServer((req, res) => void h.mcp.node(req, res));
    servers.push(server);
    const url = await listen(server);
    expect(await whoami(url, office, '127.0.0.2')).toBe('alice');
    const err = await whoami(url, office, '127.0.0.3').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 403 });
    const raw = await fetchFrom('127.0.0.3')(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${office}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(raw.status).toBe(403);
    expect(await raw.json()).toMatchObject({ error: 'forbidden', reason: 'ip' });
  });

  it('mcpHandlers (fetch): the address clientAddress hands over (here node-server’s peer)', async () => {
    const peers = new WeakMap<Request, string | undefined>();
    const h = mcpHandlers({
      auth: s.auth,
      server: () => whoamiServer(),
      clientAddress: (req) => (req instanceof Request ? peers.get(req) : req.socket.remoteAddress),
    });
    const server = serve({
      fetch: (req: Request, env: { incoming: { socket: { remoteAddress?: string | undefined } } }) => {
        peers.set(req, env.incoming.socket.remoteAddress);
        return h.mcp.fetch(req);
      },
      port: 0,
      hostname: '127.0.0.1',
    }) as Server;
    servers.push(server);
    await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    expect(await whoami(url, office, '127.0.0.2')).toBe('alice');
    await expect(whoami(url, office, '127.0.0.3')).rejects.toMatchObject({ code: 403 });
    // Without clientAddress a fetch Request has no address: a limited token is refused (fail closed).
    const bare = mcpHandlers({ auth: s.auth, server: () => whoamiServer() });
    const r = await bare.mcp.fetch(
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { authorization: `Bearer ${office}` }, body: '{}' }),
    );
    expect(r.status).toBe(403);
  });

  it('the SDK’s own bearer middleware hands the verifier no request: a limited token is refused there (403)', async () => {
    const app = express();
    app.use('/mcp', requireBearerAuth({ verifier: mcpTokenVerifier(s.auth) }), (_req, res) => {
      res.json({ ok: true });
    });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
    const r = await fetchFrom('127.0.0.2')(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, {
      headers: { authorization: `Bearer ${office}` },
    });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toContain('insufficient_scope');
  });

  it('clientAddress must be a function', () => {
    expect(caught(() => mcpHandlers({ auth: s.auth, server: () => whoamiServer(), clientAddress: 'x' as never }))).toMatchObject({
      code: 'validation',
    });
  });
});
