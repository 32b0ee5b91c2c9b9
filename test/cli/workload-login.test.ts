/**
 * CI sign-in without a stored secret, end to end with real processes: `svc serve --trust-workloads
 * <file>` trusts a GitHub-Actions-shaped issuer on loopback (discovery and JWKS over node:http,
 * real signatures), and `svc auth login --workload-token <file|->` exchanges the job's identity
 * token at the server (RFC 7523 jwt-bearer) for a short-lived token of the service account: saved
 * as the session, or printed with --print; refused when a claim differs or the token comes back.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyServer, type KeyServer, type SigningKey } from '../support/key-server';
import { githubClaims } from '../service/workloads/fixture';
import { baseEnv, exited, MAIN, ROOT, serve, svc, tempHome, type Run } from './helpers';

let idp: KeyServer & { first: SigningKey };
beforeAll(async () => {
  idp = await startKeyServer();
});
afterAll(async () => {
  await idp.close();
});

const AUDIENCE = 'https://svc.test';

function idToken(more: Record<string, unknown> = {}): Promise<string> {
  const claims = { ...githubClaims(idp.issuer, Math.floor(Date.now() / 1000)), aud: AUDIENCE, ...more };
  return idp.sign(idp.first, claims, { typ: 'JWT' });
}

/** `svc` with `input` on its stdin. */
function svcWithStdin(home: string, args: readonly string[], input: string): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: ROOT,
      env: baseEnv(home),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('svc auth login --workload-token', { timeout: 240_000 }, () => {
  it('a matching CI token signs in as the service account (saved, or printed with --print); a replay and another branch are refused', async () => {
    const { home, cleanup } = await tempHome();
    try {
      expect((await svc(home, ['member', 'set', '--user', 'olive', '--resource', 'acme', '--role', 'owner'])).code).toBe(0);
      expect((await svc(home, ['auth', 'login', '--user', 'olive'])).code).toBe(0);
      expect((await svc(home, ['org', 'service-accounts', 'create', 'acme', 'ci-bot', '--role', 'editor'])).code).toBe(0);
      expect((await svc(home, ['auth', 'logout'])).code).toBe(0);
      const trust = join(home, '..', 'workloads.json');
      const rule = {
        claims: { repository: 'acme/api', ref: 'refs/heads/main' },
        serviceAccount: 'acme/ci-bot',
        scopes: ['acme/api=repo:read'],
      };
      await writeFile(trust, JSON.stringify([{ issuer: idp.issuer, audience: AUDIENCE, rules: [rule] }]));
      const s = await serve(home, {}, ['--trust-workloads', trust]);
      try {
        const file = join(home, '..', 'id-token');
        const token = await idToken();
        await writeFile(file, `${token}\n`);
        const login = await svc(home, ['auth', 'login', '--workload-token', file]);
        expect(login.stderr).toBe('');
        expect(login).toMatchObject({ code: 0 });
        expect(login.stdout).toMatch(
          /^logged in as sa:acme\/ci-bot at http:\/\/127\.0\.0\.1:\d+: a token of sa:acme\/ci-bot for 15 minutes \(acme\/api=repo:read\)\n$/,
        );
        const status = await svc(home, ['auth', 'status']);
        expect(status.code).toBe(0);
        expect(status.stdout).toContain('sa:acme/ci-bot');

        // The same token again: spent.
        const again = await svc(home, ['auth', 'login', '--workload-token', file]);
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(/invalid_grant.*exchanged before/);

        // --print, from stdin: the bearer value alone on stdout, usable at once; nothing else printed is secret.
        const printed = await svcWithStdin(home, ['auth', 'login', '--workload-token', '-', '--print'], await idToken());
        expect(printed.code).toBe(0);
        const bearer = printed.stdout.trim();
        expect(printed.stdout).toBe(`${bearer}\n`);
        expect(printed.stderr).toContain('printed on stdout (nothing saved)');
        const head = await fetch(`${s.url}/api/repos/acme/api/head`, { headers: { authorization: `Bearer ${bearer}` } });
        expect(head.status).toBe(200);
        const web = await fetch(`${s.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${bearer}` } });
        expect(web.status).toBe(403);

        // A job on another branch: refused, the claim named, its value not printed.
        await writeFile(file, await idToken({ ref: 'refs/heads/evil-branch' }));
        const other = await svc(home, ['auth', 'login', '--workload-token', file]);
        expect(other.code).toBe(1);
        expect(other.stderr).toContain('ref');
        expect(other.stderr).not.toContain('evil-branch');
        expect(s.stderr()).not.toContain(bearer);
        expect(s.stderr()).not.toContain(token);
      } finally {
        s.child.kill('SIGTERM');
      }
      expect(await exited(s.child)).toEqual({ code: 0, signal: null });
    } finally {
      await cleanup();
    }
  });

  it('C5: misuse is a usage error (exit 2) named by the flag, before any request', async () => {
    const { home, cleanup } = await tempHome();
    try {
      const print = await svc(home, ['auth', 'login', '--print']);
      expect(print.code).toBe(2);
      expect(print.stderr).toContain('--print');
      const both = await svc(home, ['auth', 'login', '--workload-token', '-', '--user', 'alice']);
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('--workload-token');
      const notJwt = await svcWithStdin(home, ['auth', 'login', '--workload-token', '-', '--server', 'http://127.0.0.1:9'], 'hello');
      expect(notJwt.code).toBe(2);
      expect(notJwt.stderr).toContain('does not hold a JWT');
      const missing = await svc(home, ['auth', 'login', '--workload-token', join(home, 'nope'), '--server', 'http://127.0.0.1:9']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('ENOENT');
      const bad = join(home, '..', 'bad.json');
      await writeFile(bad, JSON.stringify([{ issuer: 'ftp://x', audience: '', rules: [{ claims: {}, serviceAccount: 'acme' }] }]));
      const serveBad = await svc(home, ['serve', '--port', '0', '--trust-workloads', bad]);
      expect(serveBad.code).toBe(2);
      expect(serveBad.stderr).toContain('--trust-workloads[0]');
      await writeFile(bad, '{not json');
      const notJson = await svc(home, ['serve', '--port', '0', '--trust-workloads', bad]);
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toContain('is not JSON');
    } finally {
      await cleanup();
    }
  });

  it('a server that trusts no workloads is said plainly', async () => {
    const { home, cleanup } = await tempHome();
    try {
      const s = await serve(home);
      try {
        const file = join(home, '..', 'id-token');
        await writeFile(file, await idToken());
        const got = await svc(home, ['auth', 'login', '--workload-token', file]);
        expect(got.code).toBe(1);
        expect(got.stderr).toContain('does not take workload tokens');
        expect(got.stderr).toContain('--trust-workloads');
      } finally {
        s.child.kill('SIGTERM');
        await exited(s.child);
      }
    } finally {
      await cleanup();
    }
  });
});
