/**
 * `svc-auth/mcp` on the MCP SDK's 2.x server package (`@modelcontextprotocol/server`):
 * the `/mcp` handlers serve a 2.x `McpServer` (node:http on loopback and
 * fetch), its tools read the principal from `ctx.http.authInfo` with
 * `mcpPrincipal`, `guardTool` decides on the real arguments, `canUseTool`
 * filters `tools/list`, and the 403 step-up challenge holds; driven by the 2.x
 * client (`@modelcontextprotocol/client`) and by the 1.x one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  canUseTool,
  guardTool,
  mcpHandlers,
  type McpHandlers,
  mcpPrincipal,
  mcpTokenVerifier,
  TOOL_ERROR_META,
  type McpToolPolicy,
} from '../../src/mcp';
import type { Auth } from '../../src/service';
import type { Principal } from '../../src/core/policy';
import { systemTime, testAuth } from '../support/auth';
import { API_AUDIENCE, startCompanyIdp, type CompanyIdp } from '../support/company-idp';

type Repo = { org: string; repo: string };
const READ: McpToolPolicy<Repo> = { permission: 'repo:read', resource: (a) => `${a.org}/${a.repo}` };
const WRITE: McpToolPolicy<Repo & { text: string }> = { permission: 'repo:write', resource: (a) => `${a.org}/${a.repo}` };
const RESOURCE = 'https://svc.test/mcp';
const notes = new Map<string, string>();

/** A 2.x McpServer for one credential, written as docs/mcp.md shows it. */
function server2(auth: Auth, principal: Principal): McpServer {
  const server = new McpServer({ name: 'svc-2x', version: '1.0.0' });
  server.registerTool('whoami', { description: 'Who is calling.', inputSchema: z.object({}) }, (_args, ctx) => {
    const p = mcpPrincipal(ctx.http?.authInfo);
    return { content: [{ type: 'text', text: `${p.kind}:${p.userId}` }] };
  });
  const repo = z.object({ org: z.string(), repo: z.string() });
  if (canUseTool(principal, READ))
    server.registerTool(
      'note_get',
      { inputSchema: repo },
      guardTool(auth, READ, (a: Repo) => ({ content: [{ type: 'text', text: notes.get(`${a.org}/${a.repo}`) ?? '' }] })),
    );
  if (canUseTool(principal, WRITE))
    server.registerTool(
      'note_set',
      { inputSchema: repo.extend({ text: z.string() }) },
      guardTool(auth, WRITE, (a: Repo & { text: string }, _ctx, p) => {
        notes.set(`${a.org}/${a.repo}`, a.text);
        return { content: [{ type: 'text', text: `saved by ${p.userId}` }] };
      }),
    );
  return server;
}

let idp: CompanyIdp;
let auth: Auth;
let pat = '';
let readOnlyPat = '';

beforeAll(async () => {
  idp = await startCompanyIdp(['alice', 'bob']);
  ({ auth } = await testAuth({
    roles: { alice: { orgs: { acme: 'editor' } }, bob: { orgs: { acme: 'viewer' } } },
    now: systemTime,
    trustedIssuers: [{ issuer: idp.issuer, audience: API_AUDIENCE, userId: (c) => String(c['sub']) }],
  }));
  const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
  pat = (await alice.token.create({ name: 'two' })).token;
  readOnlyPat = (await alice.token.create({ name: 'two-read', scopes: [{ permissions: ['repo:read'] }] })).token;
});
afterAll(async () => {
  await idp.close();
});

const fetchHandlers = (): McpHandlers =>
  mcpHandlers({ auth, resource: RESOURCE, server: (p) => server2(auth, p), tools: { note_get: READ, note_set: WRITE } });

/** A 2.x client on the fetch handlers, in process, with a bearer token. */
async function client2(token: string, h = fetchHandlers()): Promise<Client> {
  const client = new Client({ name: 'c2', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(RESOURCE), {
      authProvider: { token: async () => token },
      fetch: (input, init) => h.mcp.fetch(new Request(input, init)),
    }),
  );
  return client;
}

const text = (r: unknown): string => ((r as { content: { text: string }[] }).content[0] as { text: string }).text;

describe('a 2.x McpServer behind mcpHandlers (fetch), the 2.x client', () => {
  it('tools/list and calls: the principal from ctx.http.authInfo, guardTool on the real arguments', async () => {
    const client = await client2(pat);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'note_set', 'whoami']);
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('pat:alice');
    expect(text(await client.callTool({ name: 'note_set', arguments: { org: 'acme', repo: 'web', text: 'two' } }))).toBe('saved by alice');
    expect(text(await client.callTool({ name: 'note_get', arguments: { org: 'acme', repo: 'web' } }))).toBe('two');
    // alice may not write elsewhere: guardTool's tool error, facts in _meta.
    const refused = await client.callTool({ name: 'note_set', arguments: { org: 'other', repo: 'x', text: 'no' } });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.[TOOL_ERROR_META]).toMatchObject({ error: 'forbidden', permission: 'repo:write', reason: 'role' });
    await client.close();
  });

  it('a read-only PAT never sees note_set, and calling it is the tool error naming the permission', async () => {
    const client = await client2(readOnlyPat);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'whoami']);
    const r = await client.callTool({ name: 'note_set', arguments: { org: 'acme', repo: 'web', text: 'no' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^forbidden: this credential may never use note_set/);
    await client.close();
  });

  it('an OAuth token approved for repo:read lists note_set; its call is the 403 insufficient_scope challenge', async () => {
    const token = await idp.token('alice', { scope: 'repo:read' });
    const client = await client2(token);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('note_set');
    // No OAuthClientProvider here: the 2.x transport cannot step up, and says what the challenge asked for.
    await expect(client.callTool({ name: 'note_set', arguments: { org: 'acme', repo: 'web', text: 'x' } })).rejects.toMatchObject({
      name: 'InsufficientScopeError',
    });
    const h = fetchHandlers();
    const r = await h.mcp.fetch(
      new Request(RESOURCE, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'note_set', arguments: { org: 'acme', repo: 'web' } },
        }),
      }),
    );
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="svc", error="insufficient_scope", scope="repo:read repo:write", /);
    // A viewer's grant does not list what no consent can give.
    const viewer = await client2(await idp.token('bob', { scope: 'repo:read repo:write' }));
    expect((await viewer.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'whoami']);
    await client.close();
    await viewer.close();
  });
});

describe('a 2.x McpServer behind mcpHandlers (node) on loopback, both client generations', () => {
  let http: Server;
  let url = '';
  beforeAll(async () => {
    const h = mcpHandlers({ auth, server: (p) => server2(auth, p), tools: { note_get: READ, note_set: WRITE } });
    http = createServer((req, res) => {
      if ((req.url ?? '/').split('?')[0] === '/mcp') void h.mcp.node(req, res);
      else h.metadata.node(req, res);
    });
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => {
    http.closeAllConnections();
    http.close();
  });

  it('the 2.x client: list, call, write', async () => {
    const client = new Client({ name: 'c2', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => pat } }));
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'note_set', 'whoami']);
    expect(text(await client.callTool({ name: 'note_set', arguments: { org: 'acme', repo: 'api', text: 'node' } }))).toBe('saved by alice');
    expect(text(await client.callTool({ name: 'note_get', arguments: { org: 'acme', repo: 'api' } }))).toBe('node');
    await client.close();
  });

  it('the 1.x client against the same 2.x server', async () => {
    const client = new Client1({ name: 'c1', version: '1' });
    await client.connect(new Transport1(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${pat}` } } }));
    expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('pat:alice');
    await client.close();
  });

  it('no header: the 401 with resource_metadata, before the 2.x server is built', async () => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="svc", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp", scope="repo:read"$/,
    );
  });
});

describe("the 2.x node transport (@modelcontextprotocol/node) of your own endpoint, with mcpTokenVerifier's AuthInfo", () => {
  it('req.auth from the verifier reaches ctx.http.authInfo: mcpPrincipal and guardTool work; a refused token never reaches the server', async () => {
    const verifier = mcpTokenVerifier(auth, { resource: RESOURCE });
    const http = createServer((req, res) => {
      void (async () => {
        const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
        let info;
        try {
          info = await verifier.verifyAccessToken(token);
        } catch {
          res.writeHead(401, { 'www-authenticate': 'Bearer realm="svc"' }).end();
          return;
        }
        const server = server2(auth, mcpPrincipal(info));
        const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => void transport.close().then(() => server.close()));
        await server.connect(transport);
        await transport.handleRequest(Object.assign(req, { auth: info }), res);
      })();
    });
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    try {
      const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
      const client = new Client({ name: 'c2', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: { token: async () => pat } }));
      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toBe('pat:alice');
      expect(text(await client.callTool({ name: 'note_set', arguments: { org: 'acme', repo: 'own', text: 'n' } }))).toBe('saved by alice');
      await client.close();
      const refused = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer svc_nope' }, body: '{}' });
      expect(refused.status).toBe(401);
    } finally {
      http.closeAllConnections();
      http.close();
    }
  });
});
