/**
 * `svc auth login` against what it must not trust: server URLs that are not
 * acceptable, servers on loopback that answer garbage, too much, redirects,
 * metadata pointing elsewhere, a device code that never gets approved; and the
 * order in which the server is found. Fake servers are plain node:http on
 * loopback; the CLI runs in-process (runCli, the bin's own code).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/cli';
import { tempHome, type Run } from './helpers';

/** `svc` in-process (the same code as the bin, faster than a process per case). */
async function svc(home: string, args: string[], extra: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env: { SVC_HOME: home, ...extra },
    isTTY: false,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

type Handler = (path: string, body: URLSearchParams, res: ServerResponse) => void;

interface Fake {
  base: string;
  seen: string[];
  close(): Promise<void>;
}

async function fake(handler: (base: string) => Handler): Promise<Fake> {
  const seen: string[] = [];
  let base = '';
  let handle: Handler = () => undefined;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.setEncoding('utf8').on('data', (d: string) => (text += d));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push(`${req.method} ${path}`);
      handle(path, new URLSearchParams(text), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handle = handler(base);
  return {
    base,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

const metadata = (base: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  issuer: base,
  token_endpoint: `${base}/oauth/token`,
  device_authorization_endpoint: `${base}/oauth/device_authorization`,
  revocation_endpoint: `${base}/oauth/revoke`,
  ...extra,
});

/** A device server: metadata, a device code (`expires_in`, `interval`), and `poll` deciding each token answer. */
function deviceServer(poll: (n: number) => [number, unknown], d: { expires_in?: number; interval?: number } = {}) {
  return (base: string): Handler => {
    let polls = 0;
    return (path, _body, res) => {
      if (path === '/.well-known/oauth-authorization-server') return json(res, 200, metadata(base));
      if (path === '/oauth/device_authorization')
        return json(res, 200, {
          device_code: 'dc',
          user_code: 'BCDF-GHJK',
          verification_uri: `${base}/oauth/device`,
          expires_in: d.expires_in ?? 30,
          interval: d.interval ?? 1,
        });
      if (path === '/oauth/token') {
        const [status, body] = poll(++polls);
        return json(res, status, body);
      }
      json(res, 404, { error: 'invalid_request' });
    };
  };
}

describe('svc auth login: hostile servers and URLs', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  const fakes: Fake[] = [];
  const open = async (h: (base: string) => Handler): Promise<Fake> => {
    const f = await fake(h);
    fakes.push(f);
    return f;
  };
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
  });
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((f) => f.close()));
  });
  afterAll(() => cleanup());

  it.each([
    ['ftp://127.0.0.1:21', 'must use https unless its host is a loopback address'],
    ['javascript:alert(1)', 'must use https unless its host is a loopback address'],
    ['http://alice:secret@127.0.0.1:8080', 'must not carry a user name or password'],
    ['http://svc.example.com', 'must use https unless its host is a loopback address'],
    ['http://127.0.0.1:8080/evil?x=1', 'without a path, query or fragment'],
    ['not a url', 'expected the server URL'],
  ])('a server URL that is not acceptable (%s): exit 2, nothing contacted', async (url, said) => {
    const run = await svc(home, ['auth', 'login', '--server', url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(said);
    expect(run.stderr).not.toContain('secret');
  });

  it('credentials in SVC_URL are refused the same way', async () => {
    const run = await svc(home, ['auth', 'login'], { SVC_URL: 'https://u:p@svc.example.com' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('SVC_URL: the server URL must not carry a user name or password');
  });

  it('no server anywhere: a clear error that says to start svc serve or pass --user', async () => {
    const run = await svc(home, ['auth', 'login']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("start 'svc serve'");
    expect(run.stderr).toContain('--user <id>');
  });

  it('the server is --server, else SVC_URL, else the svc serve recorded in SVC_HOME', async () => {
    const refuse = (): Handler => (_p, _b, res) => json(res, 404, {});
    const [flag, env, file] = [await open(refuse), await open(refuse), await open(refuse)];
    await mkdir(home, { recursive: true, mode: 0o700 });
    await writeFile(join(home, 'serve.json'), JSON.stringify({ url: file.base, pid: 1 }), { mode: 0o600 });
    await svc(home, ['auth', 'login', '--server', flag.base], { SVC_URL: env.base });
    expect([flag.seen.length, env.seen.length, file.seen.length]).toEqual([1, 0, 0]);
    await svc(home, ['auth', 'login'], { SVC_URL: env.base });
    expect([flag.seen.length, env.seen.length, file.seen.length]).toEqual([1, 1, 0]);
    const run = await svc(home, ['auth', 'login']);
    expect([flag.seen.length, env.seen.length, file.seen.length]).toEqual([1, 1, 1]);
    expect(run.stderr).toContain(`${file.base} is not an OAuth authorization server`);
  });

  it('garbage metadata (not JSON): refused, exit 1, the answer not printed', async () => {
    const f = await open(() => (_p, _b, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>\u001b[31mhello</h1>'));
    const run = await svc(home, ['auth', 'login', '--server', f.base]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not an OAuth authorization server');
    expect(run.stderr).not.toContain('hello');
  });

  it('huge JSON (a 4 MiB answer, streamed without a length): the read stops at 64 KiB', async () => {
    const f = await open(() => (_p, _b, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"issuer":"');
      const chunk = 'a'.repeat(64 * 1024);
      for (let i = 0; i < 64; i++) res.write(chunk);
      res.end('"}');
    });
    const run = await svc(home, ['auth', 'login', '--server', f.base]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('sent more than 65536 bytes');
  });

  it('a redirect is not followed', async () => {
    const f = await open(() => (_p, _b, res) => res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end());
    const run = await svc(home, ['auth', 'login', '--server', f.base]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('redirect');
  });

  it('metadata naming another issuer, or a token endpoint on another host: refused before any code is asked', async () => {
    const other = await open((base) => (_p, _b, res) => json(res, 200, metadata(base, { issuer: 'http://127.0.0.1:1' })));
    const a = await svc(home, ['auth', 'login', '--server', other.base]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('names another issuer');
    const steal = await open(
      (base) => (_p, _b, res) => json(res, 200, metadata(base, { token_endpoint: 'https://attacker.example/token' })),
    );
    const b = await svc(home, ['auth', 'login', '--server', steal.base]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('no usable token_endpoint');
    expect(steal.seen).toEqual(['GET /.well-known/oauth-authorization-server']);
  });

  it('a code nobody approves: the CLI stops at expires_in on its own clock, exit 2', async () => {
    const f = await open(deviceServer(() => [400, { error: 'authorization_pending' }], { expires_in: 2, interval: 1 }));
    const t0 = Date.now();
    const run = await svc(home, ['auth', 'login', '--server', f.base]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the code expired before it was approved');
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(existsSync(join(home, 'session.json'))).toBe(false);
  });

  it('expired_token from the server: exit 2; access_denied: exit 2', async () => {
    const gone = await open(deviceServer(() => [400, { error: 'expired_token' }]));
    const a = await svc(home, ['auth', 'login', '--server', gone.base]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('expired_token');
    const no = await open(deviceServer(() => [400, { error: 'access_denied' }]));
    const b = await svc(home, ['auth', 'login', '--server', no.base]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('access_denied');
  });

  it('slow_down is honoured: the next poll waits 5 seconds more', async () => {
    const times: number[] = [];
    const f = await open(
      deviceServer((n) => {
        times.push(Date.now());
        return n === 1 ? [400, { error: 'slow_down' }] : [400, { error: 'access_denied' }];
      }),
    );
    const run = await svc(home, ['auth', 'login', '--server', f.base]);
    expect(run.code).toBe(2);
    expect(times).toHaveLength(2);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(5_900);
  }, 20_000);

  it('a verification URI on another host is refused (the person would approve elsewhere)', async () => {
    const f = await open((base) => (path, _b, res) => {
      if (path === '/.well-known/oauth-authorization-server') return json(res, 200, metadata(base));
      json(res, 200, { device_code: 'dc', user_code: 'BCDF-GHJK', verification_uri: 'https://phish.example/device', expires_in: 30 });
    });
    const run = await svc(home, ['auth', 'login', '--server', f.base]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the verification URI is not on the server');
    expect(run.stderr).not.toContain('phish.example');
  });
});
