/**
 * `svc serve --dpop-nonce` with the real processes: a proof without the server's nonce is a 401
 * `use_dpop_nonce` with the nonce in `DPoP-Nonce`; `svc proof --nonce` signs with it and is taken; a
 * second server on the same SVC_HOME takes the first one's nonce; the stdio bridge answers the
 * request for a nonce by itself; a nonce that could split a header is refused by `svc proof` (exit 2).
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { baseEnv, exited, MAIN, ROOT, serve, svc, tempHome } from './helpers';

describe('svc serve --dpop-nonce', { timeout: 180_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  let token = '';
  const servers: { url: string; child: ChildProcess; stderr: () => string }[] = [];

  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'editor'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '-u', 'alice'])).code).toBe(0);
    const made = await svc(home, ['token', 'create', '-n', 'laptop', '--bind-key', '--scope', 'acme/web=repo:read']);
    expect(made.code, made.stderr).toBe(0);
    token = made.stdout.trim();
    for (let i = 0; i < 2; i++) servers.push(await serve(home, {}, ['--dpop-nonce']));
  });

  afterAll(async () => {
    for (const s of servers) {
      s.child.kill('SIGTERM');
      await exited(s.child);
    }
    await cleanup();
  });

  const proof = async (url: string, nonce?: string): Promise<string> => {
    const run = await svc(home, ['proof', '--method', 'GET', '--url', url, ...(nonce === undefined ? [] : [`--nonce=${nonce}`])], {
      SVC_TOKEN: token,
    });
    expect(run.code, run.stderr).toBe(0);
    return /^DPoP: (\S+)\n$/.exec(run.stdout)?.[1] as string;
  };

  it('a proof without the nonce is 401 use_dpop_nonce; signed again with --nonce, 200; another server takes the nonce too', async () => {
    const [a, b] = servers as unknown as [{ url: string }, { url: string }];
    const url = `${a.url}/api/repos/acme/web/head`;
    const first = await fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: await proof(url) } });
    expect(first.status).toBe(401);
    expect(first.headers.get('www-authenticate')).toMatch(/^DPoP .*error="use_dpop_nonce"/);
    expect(await first.json()).toMatchObject({ reason: 'dpop_nonce' });
    const nonce = first.headers.get('dpop-nonce') as string;
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const signed = await proof(url, nonce);
    expect(decodeJwt(signed)['nonce']).toBe(nonce);
    const ok = await fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: signed } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('dpop-nonce')).toBe(nonce);

    const elsewhere = `${b.url}/api/whoami`;
    const other = await fetch(elsewhere, { headers: { authorization: `DPoP ${token}`, dpop: await proof(elsewhere, nonce) } });
    expect(other.status).toBe(200);
    // The token alone is still refused as bound.
    expect((await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('the stdio bridge asks for the nonce itself and keeps using the newest', async () => {
    const vars = Object.fromEntries(
      Object.entries(baseEnv(home, { SVC_TOKEN: token })).filter((e): e is [string, string] => e[1] !== undefined),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', MAIN, 'mcp-bridge', `${servers[0]?.url}/mcp`],
      cwd: ROOT,
      env: vars,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'bridge-nonce', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: 30_000 });
      for (let i = 0; i < 3; i++) {
        const who = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
        expect(who.structuredContent).toEqual({ kind: 'pat', user: 'alice', token: 'laptop' });
      }
      // Asked once (its first proof had no nonce), then never again.
      const log = (servers[0]?.stderr() ?? '').split('\n').filter((l) => l.includes('/mcp'));
      expect(log.filter((l) => / 401 /.test(l))).toHaveLength(1);
      expect(log.filter((l) => / 200 /.test(l)).length).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it.each([
    ['a header split', 'a\r\nx-injected: 1'],
    ['a quote', 'a"b'],
    ['an empty value', ''],
  ])('header injection: svc proof --nonce with %s is refused (exit 2)', async (_what, nonce) => {
    const run = await svc(home, ['proof', '--method', 'GET', '--url', 'http://127.0.0.1:1/x', `--nonce=${nonce}`], { SVC_TOKEN: token });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--nonce');
    expect(run.stdout).toBe('');
  });
});
