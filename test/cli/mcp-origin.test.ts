/**
 * `svc serve` checks the `Origin` of every /mcp request (DNS rebinding): a
 * real `svc serve` process, requests on loopback with the headers a browser
 * would send after a rebinding or from another site.
 */
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, exited, start as spawnSvc, svc, tempHome } from './helpers';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

function post(url: string, headers: Record<string, string>): Promise<{ status: number | undefined; body: string }> {
  const { port } = new URL(url);
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => done({ status: res.statusCode, body }));
      },
    );
    req.on('error', fail);
    req.end(INITIALIZE);
  });
}

describe('svc serve /mcp refuses foreign browser origins (DNS rebinding)', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  const children: ChildProcess[] = [];
  let token = '';

  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
    const created = await svc(home, ['token', 'create', '-n', 'web', '--scope', 'acme/web=repo:read']);
    expect(created.code, created.stderr).toBe(0);
    token = created.stdout.trim();
  });
  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited(child);
      }
    }
    await cleanup();
  });

  /** `svc serve --port 0` with extra flags; resolves to its base URL (helpers.serve takes no flags). */
  const start = (extra: string[] = []): Promise<string> =>
    new Promise((done, fail) => {
      const child = spawnSvc(['serve', '--port', '0', ...extra], baseEnv(home));
      children.push(child);
      let out = '';
      let err = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /^(http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (m?.[1]) done(m[1]);
      });
      child.on('close', (code) => fail(new Error(`svc serve exited ${code}: ${err}`)));
    });

  it('DNS rebinding: a page whose name was rebound to 127.0.0.1 (Host and Origin both evil.example) gets 403, even with a valid token', async () => {
    const url = await start();
    const port = new URL(url).port;
    const r = await post(url, { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, authorization: `Bearer ${token}` });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ error: 'forbidden' });
    // Another site's page calling the real address: 403 too. The server's own origin and non-browser clients: served.
    expect((await post(url, { origin: 'http://evil.example', authorization: `Bearer ${token}` })).status).toBe(403);
    expect((await post(url, { origin: url, authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await post(url, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('--allow-origin admits a browser origin (an MCP inspector page); others stay refused', async () => {
    const url = await start(['--allow-origin', 'http://localhost:6274', '--allow-origin', 'https://app.example']);
    expect((await post(url, { origin: 'http://localhost:6274', authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await post(url, { origin: 'https://app.example', authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await post(url, { origin: 'http://localhost:6275', authorization: `Bearer ${token}` })).status).toBe(403);
  });

  it('a wildcard or a URL with a path is not an origin: usage error (exit 2) naming --allow-origin', async () => {
    for (const bad of ['*', 'http://localhost:6274/app']) {
      const r = await svc(home, ['serve', '--port', '0', '--allow-origin', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^svc: .*--allow-origin/m);
    }
  });
});
