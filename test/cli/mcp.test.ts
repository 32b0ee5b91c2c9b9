/**
 * `svc serve` mounts /mcp: driven by the MCP SDK's own Client over the
 * Streamable HTTP transport with a PAT in the Authorization header, against a
 * real `svc serve` process, with tokens made and revoked by the real `svc`.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_ERROR_META } from '../../src/mcp';
import { exited, serve, svc, tempHome } from './helpers';

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'svc-auth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return client;
}

const structured = (r: unknown): Record<string, unknown> => (r as CallToolResult).structuredContent as Record<string, unknown>;
const textOf = (r: unknown): string => ((r as CallToolResult).content[0] as { text: string }).text;
/** The facts of a tool error, for programs (errors carry no structuredContent: see toolError). */
const facts = (r: unknown): Record<string, unknown> => (r as CallToolResult)._meta?.[TOOL_ERROR_META] as Record<string, unknown>;

describe('svc serve /mcp with the MCP SDK client and a PAT', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  let url = '';
  let child: ChildProcess | undefined;
  let full = '';
  let reader = '';
  let docs = '';
  const clients: Client[] = [];

  const token = async (args: string[]): Promise<string> => {
    const r = await svc(home, ['token', 'create', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };

  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
    full = await token([
      '-n',
      'full',
      '--scope',
      'acme/web=repo:read,repo:write',
      '--committer-identity',
      'svc:acme/users/Identity/mcp-bot',
    ]);
    reader = await token(['-n', 'reader', '--scope', 'acme/web=repo:read']);
    docs = await token([
      '-n',
      'docs',
      '--scopes-json',
      JSON.stringify([{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] }]),
    ]);
    ({ url, child } = await serve(home));
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
    await cleanup();
  });

  const open = async (t: string): Promise<Client> => {
    const c = await connect(url, t);
    clients.push(c);
    return c;
  };

  it('a read-only token lists three tools (no thing_put); a read-write token lists four', async () => {
    const ro = await open(reader);
    expect((await ro.listTools()).tools.map((t) => t.name).sort()).toEqual(['repo_head', 'thing_get', 'whoami']);
    const rw = await open(full);
    const tools = (await rw.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['repo_head', 'thing_get', 'thing_put', 'whoami']);
    expect(tools.find((t) => t.name === 'thing_put')?.inputSchema.required?.sort()).toEqual(['content', 'name', 'org', 'repo']);
  });

  it('each tool answers with the HTTP fields, as JSON text and as structuredContent', async () => {
    const c = await open(full);
    const who = await c.callTool({ name: 'whoami', arguments: {} });
    expect(structured(who)).toEqual({ kind: 'pat', user: 'alice', token: 'full' });
    expect(JSON.parse(textOf(who))).toEqual(structured(who));

    const put = await c.callTool({ name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/readme', content: 'hello' } });
    expect(put.isError).toBeFalsy();
    expect(structured(put)).toEqual({ commit: expect.stringMatching(/^[0-9a-f]{40}$/), committer: 'svc:acme/users/Identity/mcp-bot' });
    const commit = structured(put)['commit'];

    const over = await c.callTool({
      name: 'thing_put',
      arguments: { org: 'acme', repo: 'web', name: 'Doc/other', content: { n: 1 }, committer: 'svc:acme/users/Identity/someone' },
    });
    expect(structured(over)['committer']).toBe('svc:acme/users/Identity/someone');

    const head = await c.callTool({ name: 'repo_head', arguments: { org: 'Acme', repo: 'Web' } });
    expect(structured(head)).toEqual({ org: 'acme', repo: 'web', head: structured(over)['commit'] });

    const got = await c.callTool({ name: 'thing_get', arguments: { org: 'acme', repo: 'web', name: 'Doc/readme' } });
    expect(structured(got)).toEqual({ name: 'Doc/readme', content: 'hello', commit });
    // The same answer the HTTP endpoint gives.
    const http = await fetch(`${url}/api/repos/acme/web/things/Doc/readme`, { headers: { authorization: `Bearer ${full}` } });
    expect(await http.json()).toEqual(structured(got));
  });

  it('an unknown thing is a tool error, not a protocol error (thing_get has an outputSchema)', async () => {
    const c = await open(reader);
    expect((await c.listTools()).tools.find((t) => t.name === 'thing_get')?.outputSchema).toBeDefined();
    const r = await c.callTool({ name: 'thing_get', arguments: { org: 'acme', repo: 'web', name: 'Doc/missing' } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(textOf(r)).toBe('not_found: no thing Doc/missing in acme/web');
    expect(facts(r)).toMatchObject({ error: 'not_found' });
  });

  it('a Doc/** token writing Code/x gets isError with the reason in its text, never a thrown McpError', async () => {
    const c = await open(docs);
    await c.listTools(); // the SDK client now validates results against each tool's outputSchema
    const r = await c.callTool({ name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Code/x', content: 'x' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      "forbidden: repo:write on acme/web (thing Code/x) was refused (thing): the token's allowedMatches do not cover this thing",
    );
  });

  it('a thing outside allowedMatches is a tool error naming the permission and resource refused', async () => {
    const c = await open(docs);
    const r = await c.callTool({ name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Img/logo', content: 'x' } });
    expect(r.isError).toBe(true);
    expect(facts(r)).toEqual({
      error: 'forbidden',
      message: expect.stringContaining('repo:write on acme/web'),
      permission: 'repo:write',
      resource: 'acme/web',
      thing: 'Img/logo',
      reason: 'thing',
    });
    const inside = await c.callTool({ name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/guide', content: 'ok' } });
    expect(inside.isError).toBeFalsy();
  });

  it('escalation attempt: a read-only token calling the hidden thing_put directly is refused', async () => {
    const c = await open(reader);
    await c.listTools();
    const r = await c.callTool({ name: 'thing_put', arguments: { org: 'acme', repo: 'web', name: 'Doc/x', content: 'x' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      'forbidden: this credential may never use thing_put: it holds repo:write on no resource (its role or its scopes leave it out)',
    );
    expect(facts(r)).toMatchObject({ error: 'forbidden', tool: 'thing_put', permission: 'repo:write' });
  });

  it('a repo outside the token scope is refused with reason scope', async () => {
    const c = await open(reader);
    await c.listTools();
    const r = await c.callTool({ name: 'repo_head', arguments: { org: 'acme', repo: 'api' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("repo:read on acme/api was refused (scope): the token's scopes do not include it");
    expect(facts(r)).toMatchObject({ error: 'forbidden', permission: 'repo:read', resource: 'acme/api', reason: 'scope' });
  });

  it('no header is a 401 carrying resource_metadata and the first scope to ask for (read); the metadata lists the server and every scope the tools need', async () => {
    const r = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(r.status).toBe(401);
    const meta = `${url}/.well-known/oauth-protected-resource/mcp`;
    expect(r.headers.get('www-authenticate')).toBe(`Bearer realm="svc", resource_metadata="${meta}", scope="repo:read"`);
    const doc = await fetch(meta);
    expect(doc.status).toBe(200);
    expect(await doc.json()).toEqual({
      resource: `${url}/mcp`,
      authorization_servers: [url],
      bearer_methods_supported: ['header'],
      resource_name: 'svc dev instance',
      scopes_supported: ['repo:read', 'repo:write'],
      dpop_signing_alg_values_supported: ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'],
      dpop_bound_access_tokens_required: false,
    });
  });

  it('a token revoked with `svc token revoke` fails on its next MCP request (401 invalid_token)', async () => {
    const victim = await token(['-n', 'victim', '--scope', 'acme/web=repo:read']);
    const c = await open(victim);
    expect(structured(await c.callTool({ name: 'whoami', arguments: {} }))).toMatchObject({ token: 'victim' });
    expect((await svc(home, ['token', 'revoke', '--name', 'victim'])).code).toBe(0);
    await expect(c.callTool({ name: 'whoami', arguments: {} })).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('the token has been revoked'),
    });
    const raw = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${victim}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(raw.status).toBe(401);
    const challenge = raw.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(
      /^Bearer realm="svc", error="invalid_token", error_description="the token has been revoked: sign in again; for a personal access token, create a new one with `svc token create`", resource_metadata="http:/,
    );
    expect(challenge).not.toContain(victim);
    expect(await raw.text()).not.toContain(victim);
  });
});
