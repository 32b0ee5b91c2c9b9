/**
 * `svc mcp-bridge <url>`, the stdio bridge that signs proofs: started as an
 * MCP client starts a local server, driven through the SDK's
 * StdioClientTransport, against a real `svc serve`. A key-bound PAT works
 * through it (each request carries a fresh DPoP proof); an unbound one goes as
 * Bearer; a bound one whose key is not found is refused, and the client is
 * told so instead of waiting.
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { baseEnv, exited, MAIN, ROOT, serve, svc, tempHome } from './helpers';

describe('svc mcp-bridge', { timeout: 180_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  let url = '';
  let server: ChildProcess | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
    ({ url, child: server } = await serve(home));
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    if (server !== undefined && server.exitCode === null) {
      server.kill('SIGTERM');
      await exited(server);
    }
    await cleanup();
  });

  async function connect(env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
    const vars = Object.fromEntries(Object.entries(baseEnv(home, env)).filter((e): e is [string, string] => e[1] !== undefined));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', MAIN, 'mcp-bridge', `${url}/mcp`],
      cwd: ROOT,
      env: vars,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const client = new Client({ name: 'bridge-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport, { timeout: 30_000 });
    return { client, stderr: () => stderr };
  }

  it('a key-bound PAT works through the bridge, which signs a proof per request; the token alone does not reach the server', async () => {
    const made = await svc(home, ['token', 'create', '-n', 'bridged', '--bind-key', '--scope', 'acme/web=repo:read']);
    expect(made.code, made.stderr).toBe(0);
    const token = made.stdout.trim();
    const alone = await fetch(`${url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } });
    expect(alone.status).toBe(401);
    const { client, stderr } = await connect({ SVC_TOKEN: token });
    const who = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    expect(who.structuredContent).toEqual({ kind: 'pat', user: 'alice', token: 'bridged' });
    const head = (await client.callTool({ name: 'repo_head', arguments: { org: 'acme', repo: 'web' } })) as CallToolResult;
    expect(head.isError, JSON.stringify(head)).toBeFalsy();
    expect(stderr()).not.toContain(token);
  });

  it('a request the endpoint refuses (the token revoked meanwhile) is answered with an error, not left waiting', async () => {
    const token = (await svc(home, ['token', 'create', '-n', 'short', '--bind-key'])).stdout.trim();
    const { client } = await connect({ SVC_TOKEN: token });
    expect((await svc(home, ['token', 'revoke', '-n', 'short'])).code).toBe(0);
    await expect(client.callTool({ name: 'whoami', arguments: {} }, undefined, { timeout: 20_000 })).rejects.toThrow(/refused/);
  });

  it('an unbound PAT goes as Bearer', async () => {
    const token = (await svc(home, ['token', 'create', '-n', 'plain', '--scope', 'acme/web=repo:read'])).stdout.trim();
    const { client } = await connect({ SVC_TOKEN: token });
    const who = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    expect(who.structuredContent).toEqual({ kind: 'pat', user: 'alice', token: 'plain' });
  });

  it('attack: a bound PAT whose key is gone is refused: the bridge does not start', async () => {
    const token = (await svc(home, ['token', 'create', '-n', 'keyless', '--bind-key'])).stdout.trim();
    await rename(join(home, 'keys', 'keyless.jwk'), join(home, 'elsewhere.jwk'));
    await expect(connect({ SVC_TOKEN: token })).rejects.toThrow();
  });
});
