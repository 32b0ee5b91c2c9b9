/**
 * The MCP examples that docs/mcp.md shows verbatim (examples/mcp-tools.ts,
 * mcp-node.ts, mcp-fetch.ts), importing `svc-auth` and `svc-auth/mcp` by
 * their public names, served on loopback (node:http, and Hono on
 * @hono/node-server) and driven by the MCP SDK's own Client.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Auth } from 'svc-auth';
import { createMcpApp as fetchApp } from '../../examples/mcp-fetch';
import { createMcpApp as nodeApp } from '../../examples/mcp-node';
import { buildServer } from '../../examples/mcp-tools';
import { testAuth } from '../support/auth';

/** alice is an editor of acme; two PATs of hers: read-only and read-write on acme/web. */
async function demo(): Promise<{ auth: Auth; reader: string; writer: string }> {
  const { auth } = await testAuth({ issuer: 'http://127.0.0.1', everyone: { orgs: { acme: 'editor' } } });
  const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
  const reader = await alice.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
  const writer = await alice.token.create({ name: 'writer', scopes: [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }] });
  return { auth, reader: reader.token, writer: writer.token };
}

interface Running {
  url: string;
  server: Server;
}

const start: Record<string, (auth: Auth) => Promise<Running>> = {
  'examples/mcp-node.ts': async (auth) => {
    const server = nodeApp(auth, (p) => buildServer(auth, p));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
  },
  'examples/mcp-fetch.ts': async (auth) => {
    // The app needs its public URL, known once the port is.
    const late: { app?: ReturnType<typeof fetchApp> } = {};
    const server = await new Promise<Server>((done) => {
      const s = serve(
        { fetch: (req: Request) => late.app?.fetch(req) ?? new Response(null, { status: 503 }), port: 0, hostname: '127.0.0.1' },
        () => done(s as Server),
      );
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    late.app = fetchApp(auth, (p) => buildServer(auth, p), url);
    return { url, server };
  },
};

const text = (r: unknown): string => ((r as CallToolResult).content[0] as { text: string }).text;

describe.each(Object.keys(start))('%s', { timeout: 60_000 }, (file) => {
  let running: Running | undefined;
  let tokens: { reader: string; writer: string } = { reader: '', writer: '' };
  const clients: Client[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    if (running !== undefined) await new Promise<void>((done) => running?.server.close(() => done()));
  });
  const connect = async (token: string): Promise<Client> => {
    const c = new Client({ name: 'example-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(running!.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    clients.push(c);
    return c;
  };

  it('serves /mcp to the SDK client: a read-only token sees no write tool, a writer writes, a refusal is isError', async () => {
    const d = await demo();
    tokens = d;
    running = await (start[file] as (auth: Auth) => Promise<Running>)(d.auth);
    const reader = await connect(tokens.reader);
    expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'whoami']);
    expect(JSON.parse(text(await reader.callTool({ name: 'whoami', arguments: {} })))).toEqual({ user: 'alice', token: 'reader' });
    // note_get has an outputSchema: the refusal still arrives as a result, not a thrown McpError.
    const refused = await reader.callTool({ name: 'note_get', arguments: { org: 'acme', repo: 'api' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('repo:read on acme/api was refused (scope)');

    const writer = await connect(tokens.writer);
    expect((await writer.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'note_set', 'whoami']);
    expect(text(await writer.callTool({ name: 'note_set', arguments: { org: 'acme', repo: 'web', text: 'hi' } }))).toBe('saved');
    expect(await reader.callTool({ name: 'note_get', arguments: { org: 'acme', repo: 'web' } })).toMatchObject({
      structuredContent: { text: 'hi' },
    });
  });

  it('answers a request without a token with 401 and the metadata URL, and serves the metadata', async () => {
    const base = new URL(running!.url);
    const r = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(401);
    const meta = `${base.origin}/.well-known/oauth-protected-resource/mcp`;
    expect(r.headers.get('www-authenticate')).toBe(`Bearer realm="svc", resource_metadata="${meta}"`);
    expect(await (await fetch(meta)).json()).toEqual({
      resource: base.href,
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'],
      dpop_bound_access_tokens_required: false,
    });
  });

  it('DNS rebinding: a foreign browser Origin is refused with 403 before the token is read', async () => {
    const r = await fetch(running!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example', authorization: `Bearer ${tokens.writer}` },
      body: '{}',
    });
    expect(r.status).toBe(403);
  });
});
