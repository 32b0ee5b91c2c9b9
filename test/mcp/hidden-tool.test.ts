/**
 * The `tools` option of the `/mcp` handlers: a server registers only the tools
 * `canUseTool` allows, so a read-only token never sees a write tool. An
 * escalation attempt that calls the hidden tool by name anyway must get the
 * refusal's reason (the permission it lacks), not the SDK's "Tool not found",
 * and must never reach the tool. Through the official SDK client over real
 * HTTP on loopback (node:http) and through the fetch handlers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../src/core/policy';
import { canUseTool, guardTool, mcpHandlers, TOOL_ERROR_META, type McpHandlerOptions, type McpToolPolicy } from '../../src/mcp';
import type { Auth } from '../../src/service';
import { testAuth } from '../support/auth';
import { caught } from '../support/errors';

type ThingArgs = { org: string; repo: string; name: string };
const thingShape = { org: z.string(), repo: z.string(), name: z.string() };
const PUT: McpToolPolicy<ThingArgs> = { permission: 'repo:write', resource: (a) => `${a.org}/${a.repo}`, thing: (a) => a.name };
const GET: McpToolPolicy<ThingArgs> = { permission: 'repo:read', resource: (a) => `${a.org}/${a.repo}`, thing: (a) => a.name };

let auth: Auth;
let writes = 0;
const tokens: Record<string, string> = {};

function serverFor(principal: Principal): McpServer {
  const server = new McpServer({ name: 'user', version: '1.0.0' });
  server.registerTool(
    'doc_get',
    { inputSchema: thingShape, outputSchema: { name: z.string() } },
    guardTool(auth, GET, (a: ThingArgs) => ({ content: [{ type: 'text', text: a.name }], structuredContent: { name: a.name } })),
  );
  if (canUseTool(principal, PUT)) {
    server.registerTool(
      'doc_put',
      { inputSchema: thingShape, outputSchema: { commit: z.string() } },
      guardTool(auth, PUT, () => {
        writes++;
        return { content: [{ type: 'text', text: 'c1' }], structuredContent: { commit: 'c1' } };
      }),
    );
  }
  return server;
}

const options = (extra: Partial<McpHandlerOptions> = {}): McpHandlerOptions => ({
  auth,
  server: serverFor,
  tools: { doc_get: GET, doc_put: PUT },
  ...extra,
});

const textOf = (r: unknown): string => ((r as CallToolResult).content[0] as { text: string }).text;
const REFUSAL =
  'forbidden: this credential may never use doc_put: it holds repo:write on no resource (its role or its scopes leave it out)';

beforeAll(async () => {
  const s = await testAuth({ now: () => new Date() });
  auth = s.auth;
  const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
  tokens['reader'] = (await alice.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;
  tokens['writer'] = (await alice.token.create({ name: 'writer', scopes: [{ resource: 'acme/web', permissions: ['repo:write'] }] })).token;
});

describe('escalation attempt: a read-only token calls the hidden write tool by name', () => {
  let http: Server;
  let url = '';
  const clients: Client[] = [];
  beforeAll(async () => {
    const h = mcpHandlers(options());
    http = createServer((req, res) => void h.mcp.node(req, res));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await new Promise((r) => http.close(r));
  });
  const open = async (token: string): Promise<Client> => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    clients.push(client);
    await client.listTools();
    return client;
  };

  it('node:http: the SDK client gets isError with the permission it lacks; the tool never runs', async () => {
    const c = await open(tokens['reader']!);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['doc_get']);
    writes = 0;
    const r = await c.callTool({ name: 'doc_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/x' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(REFUSAL);
    expect(r._meta?.[TOOL_ERROR_META]).toMatchObject({ error: 'forbidden', tool: 'doc_put', permission: 'repo:write' });
    expect(r.structuredContent).toBeUndefined();
    expect(writes).toBe(0);
  });

  it('a token that may write reaches the tool: the check refuses only what canUseTool hides', async () => {
    const c = await open(tokens['writer']!);
    writes = 0;
    const r = await c.callTool({ name: 'doc_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/x' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ commit: 'c1' });
    expect(writes).toBe(1);
  });

  it('a listed tool the token may use, and an unknown tool, go to the MCP server as before', async () => {
    const c = await open(tokens['reader']!);
    expect((await c.callTool({ name: 'doc_get', arguments: { org: 'acme', repo: 'web', name: 'Doc/x' } })).structuredContent).toEqual({
      name: 'Doc/x',
    });
    const unknown = await c.callTool({ name: 'nope', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/not found/i);
  });
});

describe('the fetch handlers refuse the hidden tool the same way', () => {
  it('a JSON-RPC tools/call answered 200 with the tool error, id kept', async () => {
    const h = mcpHandlers(options());
    writes = 0;
    const r = await h.mcp.fetch(
      new Request('http://127.0.0.1:1/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens['reader']}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'a7', method: 'tools/call', params: { name: 'doc_put', arguments: {} } }),
      }),
    );
    expect(r.status).toBe(200);
    const body = (await r.json()) as { id: unknown; result: CallToolResult };
    expect(body.id).toBe('a7');
    expect(body.result.isError).toBe(true);
    expect(textOf(body.result)).toBe(REFUSAL);
    expect(writes).toBe(0);
  });

  it.each([
    ['a prototype name', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: '__proto__' } }],
    ['a name that is not a string', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: { toString: 'doc_put' } } }],
    ['params that are not an object', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'doc_put' }],
    ['a notification (no id)', { jsonrpc: '2.0', method: 'tools/call', params: { name: 'doc_put' } }],
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'doc_put' } }]],
  ])('hostile body (%s): left to the MCP server, never a crash, never the tool', async (_what, body) => {
    const h = mcpHandlers(options());
    writes = 0;
    const r = await h.mcp.fetch(
      new Request('http://127.0.0.1:1/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens['reader']}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(body),
      }),
    );
    expect(r.status).toBeLessThan(500);
    expect(writes).toBe(0);
  });
});

describe('the tools option is checked when the handlers are built', () => {
  it.each([
    ['not an object', 'doc_put'],
    ['an array', [PUT]],
    ['an unknown permission', { doc_put: { permission: 'repo:own' } }],
    ['no permission', { doc_put: {} }],
    ['a tool name with spaces', { 'doc put': PUT }],
  ])('%s -> ValidationError at options.tools', (_what, tools) => {
    for (const make of [mcpHandlers]) {
      const err = caught(() => make(options({ tools: tools as NonNullable<McpHandlerOptions['tools']> })));
      expect(err).toMatchObject({ code: 'validation' });
      expect(JSON.stringify(err)).toContain('options.tools');
    }
  });
});
