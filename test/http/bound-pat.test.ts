/**
 * A key-bound PAT at every kind of endpoint, over real loopback HTTP: the
 * node and fetch guards, the Express, Hono and Fastify adapters, the `/mcp`
 * handler, and the reference server's `/api` and `/mcp`. The token alone is a
 * 401 `invalid_token`; with a DPoP proof by its key it is taken; a proof by
 * another key, or one made for another URL, is refused.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { serve } from '@hono/node-server';
import type { Auth } from 'svc-auth';
import { mcpHandlers } from 'svc-auth/mcp';
import { testAuth, systemTime } from '../support/auth';
import { adapters, closeServer, listening, type Serve } from '../support/adapters';
import { startDevServer, type DevServer } from '../support/dev-server';
import { dpopHeaders, newKey, proof, type TestKey } from '../support/dpop';

interface Endpoint {
  /** The URL a client sends to. */
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  stop(): Promise<void>;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function mcpServer(): McpServer {
  return new McpServer({ name: 't', version: '1' });
}

/** `/mcp` of handlers on `auth`, served by the server `listen` starts. */
async function mcpEndpoint(auth: Auth, listen: (h: ReturnType<typeof mcpHandlers>) => Server): Promise<Endpoint> {
  const server = listen(mcpHandlers({ auth, server: mcpServer }));
  const port = await listening(server);
  return { url: `http://127.0.0.1:${port}/mcp`, method: 'POST', body: INITIALIZE, headers: MCP_HEADERS, stop: () => closeServer(server) };
}

const guarded: [string, (auth: Auth) => Promise<Endpoint>][] = [
  ...adapters.map(([name, serve]: [string, Serve]): [string, (auth: Auth) => Promise<Endpoint>] => [
    name,
    async (auth) => {
      const { port, stop } = await serve(auth);
      return { url: `http://127.0.0.1:${port}/whoami`, method: 'GET', stop };
    },
  ]),
  ['/mcp handler (node)', (auth) => mcpEndpoint(auth, (h) => createServer((req, res) => void h.mcp.node(req, res)).listen(0, '127.0.0.1'))],
  [
    '/mcp handler (fetch)',
    (auth) => mcpEndpoint(auth, (h) => serve({ fetch: (req: Request) => h.mcp.fetch(req), port: 0, hostname: '127.0.0.1' }) as Server),
  ],
];

async function send(e: Endpoint, headers: Record<string, string>): Promise<Response> {
  return fetch(e.url, {
    method: e.method,
    headers: { ...e.headers, ...headers },
    ...(e.body === undefined ? {} : { body: e.body }),
  });
}

async function expectBound(e: Endpoint, token: string, key: TestKey, other: TestKey): Promise<void> {
  const alone = await send(e, { authorization: `Bearer ${token}` });
  expect(alone.status).toBe(401);
  expect(alone.headers.get('www-authenticate')).toContain('error="invalid_token"');
  await alone.arrayBuffer();

  const ok = await send(e, await dpopHeaders(key, token, { method: e.method, url: e.url }));
  expect(ok.status).toBe(200);
  await ok.arrayBuffer();

  const wrongKey = await send(e, await dpopHeaders(other, token, { method: e.method, url: e.url }));
  expect(wrongKey.status).toBe(401);
  expect(wrongKey.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof"|invalid_token/);
  await wrongKey.arrayBuffer();

  // A proof lifted from a request to another URL (htu) does not carry over.
  const elsewhere = new URL(e.url);
  elsewhere.pathname = '/elsewhere';
  const moved = await send(e, { authorization: `DPoP ${token}`, dpop: await proof(key, { method: e.method, url: elsewhere.href, token }) });
  expect(moved.status).toBe(401);
  await moved.arrayBuffer();

  // The token without its proof, sent with the DPoP scheme, is refused too.
  const noProof = await send(e, { authorization: `DPoP ${token}` });
  expect(noProof.status).toBe(401);
  await noProof.arrayBuffer();
}

let key: TestKey;
let other: TestKey;
beforeAll(async () => {
  [key, other] = await Promise.all([newKey(), newKey()]);
});

describe.each(guarded)('a key-bound PAT at %s', (_name, open) => {
  it('attack: the leaked token alone is 401 invalid_token; with a proof by its key it is taken; another key or URL is refused', async () => {
    const s = await testAuth({ now: systemTime, everyone: { orgs: { acme: 'editor' } } });
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    const { token, info } = await alice.token.create({ name: 'bound', bindKey: key.publicJwk });
    expect(info.boundKey).toBe(key.thumbprint);
    const e = await open(s.auth);
    try {
      await expectBound(e, token, key, other);
      // A child created with the bound token (and its proof) is bound to the same key.
      const parent = await s.auth.authenticateRequest(new Request(e.url, { method: e.method, headers: await dpopHeaders(key, token, e) }));
      const child = await s.auth.client(parent).token.create({ name: 'child' });
      expect(child.info.boundKey).toBe(key.thumbprint);
      await expectBound(e, child.token, key, other);
    } finally {
      await e.stop();
    }
  });
});

describe.each(guarded)('server nonces (dpopNonce) at %s', (_name, open) => {
  it('RFC 9449 §9: a proof without the nonce is 401 use_dpop_nonce with DPoP-Nonce; signed again with it, 200 with the current nonce', async () => {
    const s = await testAuth({ now: systemTime, everyone: { orgs: { acme: 'editor' } }, dpopNonce: { secret: 'x'.repeat(32) } });
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    const { token } = await alice.token.create({ name: 'bound', bindKey: key.publicJwk });
    const e = await open(s.auth);
    try {
      const first = await send(e, await dpopHeaders(key, token, { method: e.method, url: e.url }));
      expect(first.status).toBe(401);
      expect(first.headers.get('www-authenticate')).toMatch(/^DPoP .*error="use_dpop_nonce"/);
      const nonce = first.headers.get('dpop-nonce');
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await first.arrayBuffer();
      const again = await send(e, await dpopHeaders(key, token, { method: e.method, url: e.url, nonce: nonce as string }));
      expect(again.status).toBe(200);
      expect(again.headers.get('dpop-nonce')).toBe(nonce);
      await again.arrayBuffer();
      // A Bearer request is no DPoP request: it is answered without a nonce.
      const bearer = await send(e, { authorization: `Bearer ${await s.auth.issueSession('alice')}` });
      expect(bearer.status).toBe(200);
      expect(bearer.headers.get('dpop-nonce')).toBeNull();
      await bearer.arrayBuffer();
    } finally {
      await e.stop();
    }
  });
});

describe('a key-bound PAT at the reference server (svc serve)', () => {
  let dev: DevServer;
  let token = '';
  beforeAll(async () => {
    dev = await startDevServer();
    const alice = dev.instance.auth.client(await dev.instance.auth.authenticate(await dev.instance.auth.issueSession('alice')));
    token = (await alice.token.create({ name: 'bound', bindKey: key.publicJwk })).token;
  });
  afterAll(() => dev.close());

  it('attack: /api/whoami refuses the token alone (401 invalid_token) and takes it with its proof', async () => {
    await expectBound({ url: `${dev.base}/api/whoami`, method: 'GET', stop: async () => {} }, token, key, other);
  });

  it('attack: /mcp refuses the token alone (401 invalid_token) and takes it with its proof', async () => {
    await expectBound(
      { url: `${dev.base}/mcp`, method: 'POST', body: INITIALIZE, headers: MCP_HEADERS, stop: async () => {} },
      token,
      key,
      other,
    );
  });
});
