/**
 * A real stdio bridge: `mcp-remote` started the way a user configures it in
 * an MCP client (`mcp-remote <base>/mcp --transport http-only --allow-http
 * --header "Authorization:Bearer ${SVC_TOKEN}"`, the placeholder expanded by
 * mcp-remote from its environment), driven through the SDK's
 * StdioClientTransport, against a real `svc serve`. Hermetic: a temporary
 * HOME and MCP_REMOTE_CONFIG_DIR (mcp-remote keeps OAuth state there), no
 * browser (a PAT needs no OAuth flow), bounded in time, the child killed.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AddressInfo } from 'node:net';
import { createMcpApp } from '../../examples/mcp-node';
import { buildServer } from '../../examples/mcp-tools';
import { exited, ROOT, serve, svc, tempHome } from './helpers';
import { testAuth } from '../support/auth';

const MCP_REMOTE = join(ROOT, 'node_modules', '.bin', 'mcp-remote');

describe('mcp-remote as the stdio bridge, with a PAT', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  let url = '';
  let server: ChildProcess | undefined;
  let bridgeHome = '';
  let client: Client | undefined;
  let transport: StdioClientTransport | undefined;
  let stderr = '';
  let token = '';

  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    bridgeHome = join(home, '..', 'bridge-home');
    await mkdir(join(bridgeHome, 'mcp-auth'), { recursive: true });
    expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
    const created = await svc(home, [
      'token',
      'create',
      '-n',
      'bridge',
      '--scopes-json',
      JSON.stringify([{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] }]),
    ]);
    expect(created.code, created.stderr).toBe(0);
    token = created.stdout.trim();
    ({ url, child: server } = await serve(home));
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    const pid = transport?.pid;
    if (pid != null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (server !== undefined && server.exitCode === null) {
      server.kill('SIGTERM');
      await exited(server);
    }
    await cleanup();
  });

  it('initialize, tools/list and tools/call work through the bridge', async () => {
    transport = new StdioClientTransport({
      command: MCP_REMOTE,
      // Exactly the arguments of a Claude Desktop config; `${SVC_TOKEN}` is not expanded by any shell here.
      args: [`${url}/mcp`, '--transport', 'http-only', '--allow-http', '--header', 'Authorization:Bearer ${SVC_TOKEN}'],
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: bridgeHome,
        MCP_REMOTE_CONFIG_DIR: join(bridgeHome, 'mcp-auth'),
        SVC_TOKEN: token,
        // Nothing may open a browser: a PAT needs no OAuth flow.
        BROWSER: 'false',
        DISPLAY: '',
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    client = new Client({ name: 'svc-auth-bridge-test', version: '1.0.0' });
    await client.connect(transport, { timeout: 30_000 });
    expect(client.getServerVersion()?.name).toBe('svc');

    const tools = (await client.listTools(undefined, { timeout: 30_000 })).tools.map((t) => t.name).sort();
    expect(tools, stderr).toEqual(['repo_head', 'thing_get', 'thing_put', 'whoami']);

    const who = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    expect(who.structuredContent).toEqual({ kind: 'pat', user: 'alice', token: 'bridge' });
    const put = (await client.callTool({
      name: 'thing_put',
      arguments: { org: 'acme', repo: 'web', name: 'Doc/bridged', content: 'via mcp-remote' },
    })) as CallToolResult;
    expect(put.isError, JSON.stringify(put)).toBeFalsy();
    const got = (await client.callTool({
      name: 'thing_get',
      arguments: { org: 'acme', repo: 'web', name: 'Doc/bridged' },
    })) as CallToolResult;
    expect(got.structuredContent).toMatchObject({ name: 'Doc/bridged', content: 'via mcp-remote' });

    // Every refusal arrives as isError with its reason in the text; the SDK client behind the bridge
    // checks results against each tool's outputSchema and would throw on an error object there.
    const text = (r: CallToolResult): string => (r.content[0] as { text: string }).text;
    const code = (await client.callTool({
      name: 'thing_put',
      arguments: { org: 'acme', repo: 'web', name: 'Code/x', content: 'x' },
    })) as CallToolResult;
    expect(code.isError).toBe(true);
    expect(text(code)).toContain('forbidden: repo:write on acme/web (thing Code/x) was refused (thing)');
    const other = (await client.callTool({ name: 'repo_head', arguments: { org: 'acme', repo: 'api' } })) as CallToolResult;
    expect(other.isError).toBe(true);
    expect(text(other)).toContain('repo:read on acme/api was refused (scope)');
    const missing = (await client.callTool({
      name: 'thing_get',
      arguments: { org: 'acme', repo: 'web', name: 'Doc/missing' },
    })) as CallToolResult;
    expect(missing).toMatchObject({ isError: true, content: [{ text: 'not_found: no thing Doc/missing in acme/web' }] });

    // The token never reached the bridge's logs, and no OAuth state was written: no OAuth flow ran.
    expect(stderr).not.toContain(token);
    expect(await readdir(join(bridgeHome, 'mcp-auth'), { recursive: true })).not.toContainEqual(expect.stringMatching(/tokens\.json$/));
  });
});

describe("mcp-remote in front of a user's guardTool tools with an outputSchema (examples/mcp-*.ts)", { timeout: 120_000 }, () => {
  const done: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const d of done.reverse()) await d().catch(() => undefined);
  });

  it('a refusal of note_get (outputSchema { text }) arrives through the bridge as isError with its reason', async () => {
    const { auth } = await testAuth({ issuer: 'http://127.0.0.1', everyone: { orgs: { acme: 'editor' } } });
    const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
    const { token } = await alice.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const http = createMcpApp(auth, (p) => buildServer(auth, p));
    await new Promise<void>((ok) => http.listen(0, '127.0.0.1', ok));
    done.push(() => new Promise<void>((ok) => http.close(() => ok())));
    const { home, cleanup } = await tempHome();
    done.push(cleanup);
    await mkdir(join(home, 'mcp-auth'), { recursive: true });

    const transport = new StdioClientTransport({
      command: MCP_REMOTE,
      args: [
        `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
        '--transport',
        'http-only',
        '--allow-http',
        '--header',
        'Authorization:Bearer ${SVC_TOKEN}',
      ],
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: home,
        MCP_REMOTE_CONFIG_DIR: join(home, 'mcp-auth'),
        SVC_TOKEN: token,
        BROWSER: 'false',
        DISPLAY: '',
      },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'svc-auth-bridge-test', version: '1.0.0' });
    done.push(async () => {
      await client.close();
      if (transport.pid != null) process.kill(transport.pid, 'SIGKILL');
    });
    await client.connect(transport, { timeout: 30_000 });
    const tools = (await client.listTools(undefined, { timeout: 30_000 })).tools;
    expect(tools.find((t) => t.name === 'note_get')?.outputSchema).toBeDefined();
    const refused = (await client.callTool({ name: 'note_get', arguments: { org: 'acme', repo: 'api' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toContain(
      "repo:read on acme/api was refused (scope): the token's scopes do not include it",
    );
    const allowed = (await client.callTool({ name: 'note_get', arguments: { org: 'acme', repo: 'web' } })) as CallToolResult;
    expect(allowed).toMatchObject({ structuredContent: { text: '' } });
  });
});
