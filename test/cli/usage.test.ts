/**
 * The CLI side of issue 22's "before it expires" and "where it was used from":
 * `svc token create --allow-ip`, `svc token get` showing the allowed ranges and
 * the addresses a token was used from, `svc serve --trust-proxy`, and the
 * expiry sweep of `svc serve` (a stderr line per token and threshold, once,
 * also across a restart), with its flags checked before anything is opened.
 */
import { request } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevServer, openInstance } from '../../src/app/dev';
import { baseEnv, exited, start, svc, tempHome } from './helpers';

/** `svc serve --port 0 ...extra`, resolved once it listens. */
function serveWith(
  home: string,
  extra: readonly string[],
): Promise<{ url: string; port: number; child: ChildProcess; stderr: () => string }> {
  return new Promise((done, fail) => {
    const child = start(['serve', '--port', '0', ...extra], baseEnv(home));
    let out = '';
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:(\d+))\n/.exec(out);
      if (m?.[1] && m[2]) done({ url: m[1], port: Number(m[2]), child, stderr: () => err });
    });
    child.on('close', (code) => fail(new Error(`svc serve exited ${code}: ${err}`)));
  });
}

/** SIGTERM, then wait until its output is all read (the 'close' event comes after 'exit' and the last stderr). */
async function stop(child: ChildProcess): Promise<void> {
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.kill('SIGTERM');
  await exited(child);
  await closed;
}

/** GET /api/whoami from a local address, with extra headers. */
function whoami(port: number, from: string, token: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/whoami',
        localAddress: from,
        headers: { authorization: `Bearer ${token}`, 'user-agent': 'usage-test/1', ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('svc: allowed addresses, where tokens were used from, expiry warnings', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  let office = '';
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'editor'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
  });
  afterAll(() => cleanup());

  it('token create --allow-ip (repeatable) limits the token; token get shows the ranges; a bad range names the flag', async () => {
    const r = await svc(home, [
      'token',
      'create',
      '-n',
      'office',
      '--allow-ip',
      '127.0.0.2',
      '--allow-ip',
      '2001:DB8::/32',
      '--expires',
      '3d',
    ]);
    expect(r.code).toBe(0);
    office = r.stdout.trim();
    const get = await svc(home, ['token', 'get', '-n', 'office']);
    expect(get.stdout).toMatch(/allowed ips 127\.0\.0\.2\/32\n {12}2001:db8::\/32\n/);
    const json = JSON.parse((await svc(home, ['token', 'get', '-n', 'office', '--json'])).stdout) as { allowedIps: string[] };
    expect(json.allowedIps).toEqual(['127.0.0.2/32', '2001:db8::/32']);
    const bad = await svc(home, ['token', 'create', '-n', 'bad', '--allow-ip', '10.1.2.3/8', '--allow-ip', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--allow-ip[0]');
    expect(bad.stderr).toContain('did you mean 10.0.0.0/8?');
    expect(bad.stderr).toContain('--allow-ip[1]');
  });

  it('svc serve: the limited token is 403 from elsewhere; through --trust-proxy the named client is believed; token get shows where it was used from', async () => {
    const s = await serveWith(home, ['--trust-proxy', '127.0.0.9', '--sweep-every', 'off']);
    try {
      expect(await whoami(s.port, '127.0.0.3', office)).toBe(403);
      expect(await whoami(s.port, '127.0.0.3', office, { 'x-forwarded-for': '127.0.0.2' })).toBe(403);
      expect(await whoami(s.port, '127.0.0.9', office, { 'x-forwarded-for': '127.0.0.2' })).toBe(200);
    } finally {
      await stop(s.child); // the last-used write is flushed on the way out
    }
    expect(s.child.exitCode).toBe(0);
    const get = await svc(home, ['token', 'get', '-n', 'office']);
    expect(get.stdout).toMatch(/last used {3}\S+ \(.+\) from 127\.0\.0\.2\n/);
    expect(get.stdout).toMatch(/used from {3}127\.0\.0\.2 {2}\S+ \(.+\) {2}usage-test\/1\n/);
  });

  it('svc serve warns once about a token expiring within a threshold, and not again after a restart', async () => {
    const first = await serveWith(home, ['--warn-before', '7d']);
    const warning = /svc: token 'office' of alice expires \S+ \(within 7 days\)\n/;
    for (let i = 0; i < 100 && !warning.test(first.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
    await stop(first.child);
    expect(first.stderr()).toMatch(warning);
    expect(first.stderr().match(/token 'office'/g)).toHaveLength(1);
    const second = await serveWith(home, ['--warn-before', '7d']);
    // The sweep runs as it starts: once a request has been answered and a moment has passed, it is done.
    expect(await whoami(second.port, '127.0.0.1', 'x')).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    await stop(second.child);
    expect(second.stderr()).toContain('svc: server stopped');
    expect(second.stderr()).not.toContain("token 'office'");
  });

  it('the sweep runs on its timer, warns once per threshold, and stops with the server (in process)', async () => {
    const dev = await openInstance({ SVC_HOME: home });
    const api = dev.auth.client(await dev.auth.principalFor('alice')).token;
    await api.create({ name: 'soon', expiresIn: '2d' });
    const logs: string[] = [];
    const server = await createDevServer({
      instance: dev,
      log: (l) => logs.push(l),
      expirySweep: { intervalMs: 20, within: ['3d', '1d'] },
    });
    await server.listen({ port: 0 });
    await new Promise((r) => setTimeout(r, 200));
    await server.close();
    const count = logs.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(logs.length).toBe(count); // stopped
    expect(logs.filter((l) => l.includes("token 'soon'"))).toEqual([expect.stringMatching(/\(within 3 days\)$/)]);
    await dev.close();
  });

  it('bad sweep and proxy flags are usage errors (exit 2) named by the flag, before anything is opened', async () => {
    for (const [args, flag] of [
      [['--sweep-every', '30s'], '--sweep-every'],
      [['--sweep-every', '25h'], '--sweep-every'],
      [['--warn-before', '0d'], '--warn-before'],
      [['--warn-before', '7'], '--warn-before'],
      [['--trust-proxy', 'proxy.internal'], '--trust-proxy'],
    ] as const) {
      const r = await svc(home, ['serve', '--port', '0', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(flag);
    }
  });
});
