/**
 * Where users meet trusted issuers (issue 20, part 3): the framework examples
 * (Express, Hono, Fastify, node:http) and the MCP example accept a company IdP's
 * access token with no change to their code, because every one of them goes
 * through `auth.authenticateRequest`. The IdP is a real oidc-provider on loopback.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAuth, generateKeyRing, type Auth } from 'svc-auth';
import { createApp as expressApp } from '../../../examples/express';
import { createApp as fastifyApp } from '../../../examples/fastify';
import { createApp as honoApp } from '../../../examples/hono';
import { createApp as nodeApp } from '../../../examples/node-http';
import { createMcpApp } from '../../../examples/mcp-node';
import { buildServer } from '../../../examples/mcp-tools';
import { API_AUDIENCE, OTHER_AUDIENCE, startCompanyIdp, type CompanyIdp } from '../../support/company-idp';
import { call, close, listen } from './world';

let idp: CompanyIdp;
let auth: Auth;
/** alice's IdP token narrowed to repo:read; one granting everything her role allows; one for another API. */
const tokens = { reader: '', full: '', billing: '' };

beforeAll(async () => {
  idp = await startCompanyIdp(['alice']);
  auth = createAuth({
    issuer: 'https://svc.test',
    keys: await generateKeyRing(),
    members: { rolesOf: (u) => (u === 'alice' ? { orgs: { acme: 'editor' } } : {}) },
    // One IdP whose subs are this service's user ids: mapped as they are (T10 derives ids otherwise).
    trustedIssuers: [{ issuer: idp.issuer, audience: API_AUDIENCE, userId: (c) => String(c['sub']) }],
  });
  tokens.reader = await idp.token('alice', { scope: 'openid repo:read' });
  tokens.full = await idp.token('alice');
  tokens.billing = await idp.token('alice', { resource: OTHER_AUDIENCE });
});
afterAll(async () => {
  await idp.close();
});

interface Running {
  url: string;
  stop(): Promise<void>;
}

const frameworks: Record<string, () => Promise<Running>> = {
  'Express 5': async () => {
    const server = expressApp(auth).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => close(server) };
  },
  'Hono (@hono/node-server)': async () => {
    const app = honoApp(auth);
    const server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => close(server) };
  },
  'Fastify 5': async () => {
    const app = await fastifyApp(auth);
    return { url: await app.listen({ port: 0, host: '127.0.0.1' }), stop: () => app.close() };
  },
  'node:http': async () => {
    const server = nodeApp(auth);
    return { url: await listen(server), stop: () => close(server) };
  },
};

describe.each(Object.keys(frameworks))('examples/%s with a company IdP token', (name) => {
  let run: Running;
  beforeAll(async () => {
    run = await (frameworks[name] as () => Promise<Running>)();
  });
  afterAll(async () => run?.stop());

  it('reads with a repo:read IdP token, is refused a write (403 insufficient_scope) and token management (403), and refuses another API token (401 audience)', async () => {
    const read = await call(run.url, 'GET', '/api/repos/acme/web/head', tokens.reader);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ org: 'acme', repo: 'web', user: 'alice' });
    const write = await call(run.url, 'PUT', '/api/repos/acme/web/things/Doc/a', tokens.reader, {
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toContain('insufficient_scope');
    const mint = await call(run.url, 'POST', '/api/tokens/escalate', tokens.reader);
    expect(mint.status).toBe(403);
    const passthrough = await call(run.url, 'GET', '/api/repos/acme/web/head', tokens.billing);
    expect(passthrough.status).toBe(401);
    expect(await passthrough.json()).toMatchObject({ reason: 'audience' });
  });
});

describe('examples/mcp-node.ts with a company IdP token (MCP SDK client)', () => {
  let server: Server;
  let url = '';
  const clients: Client[] = [];
  beforeAll(async () => {
    server = createMcpApp(auth, (p) => buildServer(auth, p));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await close(server);
  });
  const connect = async (token: string): Promise<Client> => {
    const c = new Client({ name: 'issuer-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(c);
    return c;
  };

  it('a repo:read IdP token sees every tool its role allows, and writing is refused (so a client can step up); an unnarrowed one writes', async () => {
    const reader = await connect(tokens.reader);
    expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'note_set', 'whoami']);
    // Refused either way: the 403 challenge (when the handlers know the tools) or a tool error.
    const refused = await reader.callTool({ name: 'note_set', arguments: { org: 'acme', repo: 'web', text: 'x' } }).then(
      (r) => r.isError === true,
      () => true,
    );
    expect(refused).toBe(true);
    const full = await connect(tokens.full);
    expect((await full.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'note_set', 'whoami']);
  });

  it('a token minted for another API is refused with 401 before the MCP server is reached', async () => {
    const r = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${tokens.billing}`,
      },
      body: '{}',
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toContain('invalid_token');
  });
});
