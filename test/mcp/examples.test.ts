/**
 * The examples of docs/mcp.md, run as a user runs them (`tsx examples/mcp-*.ts`,
 * importing `svc-auth` and `svc-auth/mcp` from the built package), driven by
 * the MCP SDK's own Client. They need `npm run build` (CI builds first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { exited, ROOT } from '../cli/helpers';

const built = existsSync(join(ROOT, 'dist', 'mcp.js'));
if (!built) {
  if (process.env['CI']) throw new Error('dist/mcp.js is missing: run `npm run build` before the tests');
  console.warn('examples/mcp-*.ts: skipped, run `npm run build` first (they import the built package)');
}

interface Started {
  child: ChildProcess;
  url: string;
  reader: string;
  writer: string;
}

function start(file: string): Promise<Started> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', file)], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) done({ child, ...(JSON.parse(line) as Omit<Started, 'child'>) });
    });
    child.on('error', fail);
    child.on('close', (code) => fail(new Error(`${file} exited ${code}: ${err}`)));
  });
}

const text = (r: unknown): string => ((r as CallToolResult).content[0] as { text: string }).text;

describe.skipIf(!built).each(['mcp-node.ts', 'mcp-fetch.ts'])('examples/%s', { timeout: 60_000 }, (file) => {
  let ex: Started | undefined;
  const clients: Client[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    if (ex !== undefined && ex.child.exitCode === null) {
      ex.child.kill('SIGTERM');
      await exited(ex.child);
    }
  });
  const connect = async (token: string): Promise<Client> => {
    const c = new Client({ name: 'example-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(ex!.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    clients.push(c);
    return c;
  };

  it('serves /mcp to the SDK client: a read-only token sees no write tool, a writer writes', async () => {
    ex = await start(file);
    const reader = await connect(ex.reader);
    expect((await reader.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'whoami']);
    expect(JSON.parse(text(await reader.callTool({ name: 'whoami', arguments: {} })))).toEqual({ user: 'alice', token: 'reader' });
    const refused = await reader.callTool({ name: 'note_get', arguments: { org: 'acme', repo: 'api' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('repo:read on acme/api');

    const writer = await connect(ex.writer);
    expect((await writer.listTools()).tools.map((t) => t.name).sort()).toEqual(['note_get', 'note_set', 'whoami']);
    expect(text(await writer.callTool({ name: 'note_set', arguments: { org: 'acme', repo: 'web', text: 'hi' } }))).toBe('saved');
    expect(text(await reader.callTool({ name: 'note_get', arguments: { org: 'acme', repo: 'web' } }))).toBe('hi');
  });

  it('answers a request without a token with 401 and the metadata URL, and serves the metadata', async () => {
    const base = new URL(ex!.url);
    const r = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(401);
    const meta = `${base.origin}/.well-known/oauth-protected-resource/mcp`;
    expect(r.headers.get('www-authenticate')).toBe(`Bearer realm="svc", resource_metadata="${meta}"`);
    expect(await (await fetch(meta)).json()).toEqual({ resource: base.href, bearer_methods_supported: ['header'] });
  });
});
