/**
 * Refusals of `guardTool` tools that declare an `outputSchema`, seen by the
 * official MCP SDK client (1.32), which lists the tools and then checks every
 * `structuredContent` against the tool's `outputSchema`, errors included. A
 * refusal must reach the user as `isError: true` with its reason in the text,
 * never as a thrown `McpError -32602`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NotFoundError, ValidationError } from '../../src/errors';
import { guardTool, mcpHandlers, TOOL_ERROR_META, type McpToolPolicy } from '../../src/mcp';
import type { Auth } from '../../src/service';
import { testAuth } from '../support/auth';

type ThingArgs = { org: string; repo: string; name: string };
const policy = (permission: 'repo:read' | 'repo:write'): McpToolPolicy<ThingArgs> => ({
  permission,
  resource: (a) => `${a.org}/${a.repo}`,
  thing: (a) => a.name,
});
const thingShape = { org: z.string(), repo: z.string(), name: z.string() };

/** A user's server: every tool guarded, every tool with an output schema. */
function userServer(auth: Auth): McpServer {
  const server = new McpServer({ name: 'user', version: '1.0.0' });
  server.registerTool(
    'doc_put',
    { inputSchema: thingShape, outputSchema: { commit: z.string() } },
    guardTool(auth, policy('repo:write'), () => ({
      content: [{ type: 'text', text: '{"commit":"c1"}' }],
      structuredContent: { commit: 'c1' },
    })),
  );
  server.registerTool(
    'doc_get',
    { inputSchema: thingShape, outputSchema: { name: z.string(), content: z.string() } },
    guardTool(auth, policy('repo:read'), (a: ThingArgs) => {
      if (a.name === 'Doc/bad') throw new ValidationError([{ path: 'name', message: 'not a document' }]);
      if (a.name === 'Doc/boom') throw new Error('disk on fire');
      throw new NotFoundError(`no thing ${a.name} in ${a.org}/${a.repo}`);
    }),
  );
  // What guardTool answered before: an error object where the output goes. The SDK client throws on it.
  server.registerTool('old_style', { inputSchema: {}, outputSchema: { commit: z.string() } }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'forbidden: ...' }],
    structuredContent: { error: 'forbidden', reason: 'scope' },
  }));
  return server;
}

const textOf = (r: unknown): string => ((r as CallToolResult).content[0] as { text: string }).text;

describe('guardTool refusals on tools with an outputSchema, through the official SDK client', () => {
  let auth: Auth;
  const clients: Client[] = [];
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    const s = await testAuth({ now: () => new Date() });
    auth = s.auth;
    const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
    const make = async (name: string, scopes: Parameters<typeof alice.token.create>[0]['scopes']): Promise<string> =>
      (await alice.token.create({ name, ...(scopes === undefined ? {} : { scopes }) })).token;
    tokens['reader'] = await make('reader', [{ resource: 'acme/web', permissions: ['repo:read'] }]);
    tokens['docs'] = await make('docs', [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] }]);
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
  });

  const open = async (token: string): Promise<Client> => {
    const h = mcpHandlers({ auth, server: () => userServer(auth), resource: 'https://svc.test/mcp' });
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('https://svc.test/mcp'), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
        fetch: (input, init) => h.mcp.fetch(new Request(input, init)),
      }),
    );
    clients.push(client);
    // The client keeps each tool's outputSchema from tools/list and validates results against it.
    expect((await client.listTools()).tools.every((t) => t.outputSchema !== undefined)).toBe(true);
    return client;
  };

  it('the SDK client throws on an error whose structuredContent does not fit the schema (what this guards against)', async () => {
    const c = await open(tokens['reader'] as string);
    await expect(c.callTool({ name: 'old_style', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('a read-only token writing: isError with the permission, resource and reason in the text', async () => {
    const c = await open(tokens['reader'] as string);
    const r = await c.callTool({ name: 'doc_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/x' } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(textOf(r)).toBe("forbidden: repo:write on acme/web (thing Doc/x) was refused (scope): the token's scopes do not include it");
    expect(r._meta?.[TOOL_ERROR_META]).toMatchObject({ error: 'forbidden', permission: 'repo:write', reason: 'scope' });
  });

  it('a Doc/** token writing Code/x: isError naming the thing and allowedMatches', async () => {
    const c = await open(tokens['docs'] as string);
    const r = await c.callTool({ name: 'doc_put', arguments: { org: 'acme', repo: 'web', name: 'Code/x' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('repo:write on acme/web (thing Code/x) was refused (thing)');
    expect(textOf(r)).toContain('allowedMatches');
    const ok = await c.callTool({ name: 'doc_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/x' } });
    expect(ok).toMatchObject({ structuredContent: { commit: 'c1' } });
    expect(ok.isError).toBeFalsy();
  });

  it('errors the handler throws (not found, validation, anything else) are isError with their text', async () => {
    const c = await open(tokens['docs'] as string);
    const missing = await c.callTool({ name: 'doc_get', arguments: { org: 'acme', repo: 'web', name: 'Doc/missing' } });
    expect(missing).toMatchObject({ isError: true, content: [{ text: 'not_found: no thing Doc/missing in acme/web' }] });
    const bad = await c.callTool({ name: 'doc_get', arguments: { org: 'acme', repo: 'web', name: 'Doc/bad' } });
    expect(bad).toMatchObject({ isError: true, content: [{ text: 'validation: name: not a document' }] });
    const boom = await c.callTool({ name: 'doc_get', arguments: { org: 'acme', repo: 'web', name: 'Doc/boom' } });
    expect(boom.isError).toBe(true);
    // Outside its allowedMatches, before the handler runs.
    const outside = await c.callTool({ name: 'doc_get', arguments: { org: 'acme', repo: 'web', name: 'Code/x' } });
    expect(outside).toMatchObject({ isError: true, _meta: { [TOOL_ERROR_META]: { reason: 'thing' } } });
  });
});
