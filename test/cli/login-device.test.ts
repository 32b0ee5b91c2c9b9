/**
 * `svc auth login` by device code against a real `svc serve` on loopback, a
 * real chromium (playwright-core, JavaScript off) approving as a person would,
 * and the real `svc` processes: sign-in, use by other commands, renewal with
 * rotation, logout revoking at the server, denial, a server that went away.
 * Screenshots of the device pages go to test-artifacts/ (not committed).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { decodeJwt } from 'jose';
import { chromium, type Browser as Chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS, describeWithChromium } from '../support/chromium';
import { baseEnv, exited, serve, start, svc, tempHome, type Run } from './helpers';

const ARTIFACTS = join(process.cwd(), 'test-artifacts');

interface Saved {
  user: string;
  token: string;
  oauth: { server: string; clientId: string; refreshToken: string; expiresAt: string };
}

describeWithChromium('svc auth login by device code')('svc auth login by device code, against svc serve, approved in chromium', () => {
  let home: string;
  let cleanup: () => Promise<void>;
  let server: { url: string; child: ChildProcess };
  let browser: Chromium;
  const sessionPath = (): string => join(home, 'session.json');
  const saved = async (): Promise<Saved> => JSON.parse(await readFile(sessionPath(), 'utf8')) as Saved;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
    server = await serve(home);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.child.kill('SIGTERM');
    if (server) await exited(server.child);
    await cleanup?.();
  });

  /** Run `svc auth login` (args) and, once it prints the URL, decide in the browser; its run. */
  async function login(decision: 'approve' | 'deny', args: string[] = [], shots = false): Promise<Run> {
    const child = start(['auth', 'login', ...args], baseEnv(home));
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const uri = await new Promise<string>((resolve, reject) => {
      child.stderr?.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        const m = /^(https?:\/\/\S+)$/m.exec(stderr);
        if (m?.[1]) resolve(m[1]);
      });
      child.on('close', () => reject(new Error(`login ended early: ${stderr}`)));
    });
    const code = /shows the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr)?.[1];
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 720, height: 860 } });
    const p = await context.newPage();
    await p.goto(uri);
    await p.click('button[type=submit]'); // verification_uri_complete: the code is posted by a button (no script)
    expect(await p.locator('p.code').innerText()).toBe(code);
    if (shots) await p.screenshot({ path: join(ARTIFACTS, 'cli-device-confirm.png'), fullPage: true });
    await p.click('button[value=yes][name=confirm]');
    await p.selectOption('select#user', 'alice');
    await p.click('button[type=submit]');
    const consent = await p.locator('main').innerText();
    expect(consent).toContain('full access as you, alice');
    expect(consent).toContain('create, list and revoke your tokens');
    if (shots) await p.screenshot({ path: join(ARTIFACTS, 'cli-device-consent.png'), fullPage: true });
    await p.click(`button[value=${decision}]`);
    if (shots) await p.screenshot({ path: join(ARTIFACTS, 'cli-device-done.png'), fullPage: true });
    await context.close();
    const { code: exit } = await exited(child);
    await new Promise((r) => setImmediate(r));
    return { code: exit, stdout, stderr };
  }

  it('finds the server by SVC_HOME/serve.json, prints the URL on its own line, saves the session (0600) and says who signed in', async () => {
    const serveRecord = JSON.parse(await readFile(join(home, 'serve.json'), 'utf8')) as { url: string };
    expect(serveRecord.url).toBe(server.url);
    const run = await login('approve', [], true);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`logged in as alice at ${server.url}\n`);
    expect(run.stderr).toMatch(new RegExp(`^${server.url}/oauth/device\\?user_code=[A-Z]{4}-[A-Z]{4}$`, 'm'));
    const s = await saved();
    expect(s.oauth).toMatchObject({ server: server.url, clientId: 'svc-cli' });
    expect((await stat(sessionPath())).mode & 0o777).toBe(0o600);
    // Never a token value on the terminal.
    for (const secret of [s.token, s.oauth.refreshToken]) expect(run.stdout + run.stderr).not.toContain(secret);
    const claims = decodeJwt(s.token);
    expect(claims).toMatchObject({ sub: 'alice', aud: server.url, client_id: 'svc-cli' });
    expect(Object.hasOwn(claims, 'scope')).toBe(false);
  }, 60_000);

  it('the other commands use the saved session: token create, auth status', async () => {
    const made = await svc(home, ['token', 'create', '--name', 'ci', '--scope', 'acme=repo:read']);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^svc_|^ey/);
    const status = await svc(home, ['auth', 'status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ user: 'alice', kind: 'session', source: 'session', server: server.url });
  }, 30_000);

  it('a session saved from a server whose records live in another SVC_HOME: a clear error, not a crash', async () => {
    const other = await tempHome();
    try {
      await svc(other.home, ['member', 'list']); // creates the home
      await writeFile(join(other.home, 'session.json'), await readFile(sessionPath(), 'utf8'), { mode: 0o600 });
      const run = await svc(other.home, ['token', 'list']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`issued by ${server.url}, whose session records are not in this SVC_HOME`);
    } finally {
      await other.cleanup();
    }
  }, 30_000);

  it('renews an expired access token with its refresh token, once for two commands at once (rotation: the old one is refused afterwards)', async () => {
    const before = await saved();
    await writeFile(sessionPath(), JSON.stringify({ ...before, oauth: { ...before.oauth, expiresAt: '2000-01-01T00:00:00.000Z' } }), {
      mode: 0o600,
    });
    // Two commands at once: one renews under the session file's lock, the other waits and uses the new
    // pair. Were both to send the old refresh token, the server would end the grant (reuse detection).
    const [list, other] = await Promise.all([svc(home, ['token', 'list', '--json']), svc(home, ['auth', 'status'])]);
    expect(list.code).toBe(0);
    expect(other.code).toBe(0);
    const after = await saved();
    expect(after.token).not.toBe(before.token);
    expect(after.oauth.refreshToken).not.toBe(before.oauth.refreshToken);
    expect(Date.parse(after.oauth.expiresAt)).toBeGreaterThan(Date.now());
    expect(list.stdout + list.stderr).not.toContain(after.oauth.refreshToken);
    // The spent refresh token is refused (and, being replayed, ends the grant: oidc-provider's reuse detection).
    const replay = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: before.oauth.refreshToken, client_id: 'svc-cli' }).toString(),
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    // The grant has ended: a renewal fails, and the CLI says to sign in again.
    const now = await saved();
    await writeFile(sessionPath(), JSON.stringify({ ...now, oauth: { ...now.oauth, expiresAt: '2000-01-01T00:00:00.000Z' } }), {
      mode: 0o600,
    });
    const refused = await svc(home, ['token', 'list']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("run 'svc auth login' to sign in again");
  }, 30_000);

  it('logout revokes the session at the server: its access token then gets 401 at /api/whoami', async () => {
    expect((await login('approve')).code).toBe(0);
    const { token } = await saved();
    expect((await fetch(`${server.url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const out = await svc(home, ['auth', 'logout']);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(`logged out: the session was revoked at ${server.url}\n`);
    expect(existsSync(sessionPath())).toBe(false);
    expect((await fetch(`${server.url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  }, 60_000);

  it('a denial in the browser: exit 2, nothing saved', async () => {
    const run = await login('deny', ['--server', server.url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('sign-in denied');
    expect(existsSync(sessionPath())).toBe(false);
  }, 60_000);

  it('a server that went away: logout keeps the session and fails; a stale serve.json is said to be stale', async () => {
    expect((await login('approve')).code).toBe(0);
    server.child.kill('SIGKILL');
    await exited(server.child);
    const out = await svc(home, ['auth', 'logout']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('the saved session was kept');
    expect(existsSync(sessionPath())).toBe(true);
    const stale = await svc(home, ['auth', 'login']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('no server answers there');
    // A cleanly stopped svc serve removes its record: then login says to start one or pass --user.
    const again = await serve(home);
    server = again;
    server.child.kill('SIGTERM');
    const ended = await exited(server.child);
    expect({ ended, left: existsSync(join(home, 'serve.json')), stderr: again.stderr() }).toMatchObject({
      ended: { code: 0 },
      left: false,
    });
    const none = await svc(home, ['auth', 'login']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("start 'svc serve'");
    expect(none.stderr).toContain('--user <id>');
  }, 60_000);
});
