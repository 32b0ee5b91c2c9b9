/**
 * `mcp-remote` with no header runs its own OAuth flow against a real `svc serve`,
 * as a new user's `npx mcp-remote <base>/mcp` does: discovery from the 401 on
 * /mcp, dynamic registration, PKCE, its browser opener (pointed by BROWSER at a
 * script that hands the authorization URL to this test), sign-in and consent in
 * Debian's chromium, the redirect to its own callback port, the code exchange,
 * then initialize, tools/list and tool calls over its stdio. Hermetic: a
 * temporary SVC_HOME, HOME and MCP_REMOTE_CONFIG_DIR; every child killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodeJwt } from 'jose';
import { chromium, type Browser as Chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exited, ROOT, serve, svc, tempHome } from '../cli/helpers';
import { CHROMIUM, CHROMIUM_FLAGS, describeWithChromium } from '../support/chromium';

const MCP_REMOTE = join(ROOT, 'node_modules', '.bin', 'mcp-remote');
const ARTIFACTS = join(ROOT, 'test-artifacts');
// Generous: two cores shared by several test runs, and a sign-in is four page loads plus three processes.
const FLOW_MS = 120_000;
/** Sign in for writing too, from the start (the 401 of svc serve asks for repo:read only). */
const WRITE_SCOPE = ['--static-oauth-client-metadata', '{"scope":"repo:read repo:write"}'];

/** A port free on loopback now; mcp-remote gets it pinned (a pinned port is strict: no fallback to the next one). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

/** Poll `probe` until it returns a value; `what` names it in the timeout's message, with `context()`. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, context: () => string, ms = FLOW_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${context()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Bridge {
  env: Record<string, string>;
  configDir: string;
  /** The URLs mcp-remote's browser opener was given so far. */
  opened: () => Promise<string[]>;
}

interface Started {
  client: Client;
  transport: StdioClientTransport;
  connecting: Promise<void>;
  opened: string | undefined;
  stderr: () => string;
  tell: () => string;
}

/** One temporary HOME for mcp-remote, with its config dir and a BROWSER script that logs each URL it is given. */
async function bridgeHome(dir: string): Promise<Bridge> {
  const configDir = join(dir, 'mcp-auth');
  await mkdir(configDir, { recursive: true });
  const log = join(dir, 'opened.txt');
  const opener = join(dir, 'open-in-test.sh');
  // xdg-open (bundled with the `open` package mcp-remote calls) runs `$BROWSER <url>` when it finds no
  // desktop: this stands in for the person's browser. One printf is one append, so a line is whole.
  await writeFile(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
  await chmod(opener, 0o755);
  return {
    configDir,
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: opener, DISPLAY: '' },
    opened: async () => (existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter(Boolean) : []),
  };
}

async function savedFiles(configDir: string, suffix: string): Promise<string[]> {
  return (await readdir(configDir, { recursive: true })).filter((f) => f.endsWith(suffix)).map((f) => join(configDir, f));
}

describeWithChromium('the mcp-remote OAuth tests')(
  'mcp-remote with no header signs in by OAuth against svc serve',
  { timeout: 4 * FLOW_MS },
  () => {
    let home = '';
    let cleanup = async (): Promise<void> => undefined;
    let url = '';
    let server: ChildProcess | undefined;
    let serverStderr = (): string => '';
    let browser: Chromium | undefined;
    const children: ChildProcess[] = [];
    const clients: Client[] = [];
    // What the first sign-in left for the revocation case: its HOME and pinned callback port.
    let signedIn: { bridge: Bridge; port: number; transport: StdioClientTransport } | undefined;

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      ({ home, cleanup } = await tempHome());
      expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
      expect((await svc(home, ['member', 'set', '--user', 'bob', '--resource', 'acme/web', '--role', 'viewer'])).code).toBe(0);
      ({ url, child: server, stderr: serverStderr } = await serve(home));
      browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
    }, FLOW_MS);

    afterAll(async () => {
      for (const c of clients) await c.close().catch(() => undefined);
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await Promise.all(children.map((c) => exited(c)));
      await browser?.close();
      if (server !== undefined && server.exitCode === null) {
        server.kill('SIGTERM');
        await exited(server);
      }
      await cleanup();
    }, FLOW_MS);

    async function page(javaScriptEnabled = false): Promise<Page> {
      const context = await (browser as Chromium).newContext({ javaScriptEnabled, viewport: { width: 720, height: 860 } });
      return context.newPage();
    }

    /** Sign in as `user` on the page mcp-remote opened and decide; the callback page it lands on. */
    async function consent(p: Page, authUrl: string, port: number, decision: 'approve' | 'deny', shots?: string): Promise<URL> {
      await p.goto(authUrl);
      expect(await p.title()).toMatch(/^Sign in to /);
      if (shots !== undefined) await p.screenshot({ path: join(ARTIFACTS, `${shots}-sign-in.png`), fullPage: true });
      await p.selectOption('select#user', 'alice');
      await p.click('button[type=submit]');
      expect(await p.title()).toMatch(/^Allow MCP CLI Proxy\? /);
      const text = await p.locator('main').innerText();
      expect(text).toContain('MCP CLI Proxy');
      expect(text).toContain(`localhost:${port}`);
      if (shots !== undefined) await p.screenshot({ path: join(ARTIFACTS, `${shots}-consent.png`), fullPage: true });
      await p.click(`button[value=${decision}]`);
      await p.waitForURL(`http://localhost:${port}/oauth/callback?**`, { timeout: FLOW_MS });
      return new URL(p.url());
    }

    /**
     * Start `mcp-remote <base>/mcp ...args` on the stdio of an SDK client. It signs in before it
     * reads its stdin, so `initialize` waits for the whole flow. `opened` is what `asks` found (the
     * URL it sent the person to), or undefined when it connected without asking.
     */
    async function bridge(
      b: Bridge,
      args: string[],
      asks: (stderr: string) => Promise<string | undefined>,
      target = `${url}/mcp`,
    ): Promise<Started> {
      const transport = new StdioClientTransport({ command: MCP_REMOTE, args: [target, ...args], env: b.env, stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      const client = new Client({ name: 'svc-auth-mcp-remote-oauth-test', version: '1.0.0' });
      clients.push(client);
      const connecting = client.connect(transport, { timeout: 2 * FLOW_MS });
      connecting.catch(() => undefined);
      const tell = (): string => `mcp-remote stderr:\n${stderr}`;
      const opened = await Promise.race([
        waitFor('mcp-remote to ask for a sign-in', () => asks(stderr), tell),
        connecting.then(() => undefined),
      ]);
      return { client, transport, connecting, opened, stderr: () => stderr, tell };
    }

    it('registers, opens the browser, gets a code on its callback port, and then lists and calls tools', async () => {
      const b = await bridgeHome(join(home, '..', 'bridge-ok'));
      const port = await freePort();
      // The scope pinned, as docs/mcp.md says for mcp-remote 0.15: it cannot step up to exactly the metadata's
      // scopes_supported (it takes a challenge naming them for its own default and asks for repo:read again).
      const { client, transport, connecting, opened, stderr, tell } = await bridge(
        b,
        [String(port), ...WRITE_SCOPE],
        async () => (await b.opened())[0],
      );
      signedIn = { bridge: b, port, transport };
      expect(opened, `connected without a sign-in\n${tell()}`).toBeDefined();
      const authUrl = opened as string;
      const asked = new URL(authUrl);
      expect(`${asked.origin}${asked.pathname}`).toBe(`${url}/oauth/authorize`);
      expect(Object.fromEntries(asked.searchParams)).toMatchObject({
        response_type: 'code',
        code_challenge_method: 'S256',
        redirect_uri: `http://localhost:${port}/oauth/callback`,
        resource: `${url}/mcp`,
        scope: 'repo:read repo:write',
      });

      const p = await page();
      const back = await consent(p, authUrl, port, 'approve', 'mcp-remote');
      const code = back.searchParams.get('code') as string;
      expect(code).toBeTruthy();
      expect(back.searchParams.get('state')).toBe(asked.searchParams.get('state'));
      expect(await p.locator('body').innerText()).toContain('Authorization successful');
      await p.context().close();

      await connecting;
      expect(client.getServerVersion()?.name).toBe('svc');
      const tools = (await client.listTools(undefined, { timeout: FLOW_MS })).tools.map((t) => t.name).sort();
      expect(tools, tell()).toEqual(['repo_head', 'thing_get', 'thing_put', 'whoami']);
      const who = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
      expect(who.structuredContent).toMatchObject({ kind: 'session', user: 'alice' });
      const put = (await client.callTool({
        name: 'thing_put',
        arguments: { org: 'acme', repo: 'web', name: 'Doc/via-oauth', content: 'signed in through mcp-remote' },
      })) as CallToolResult;
      expect(put.isError, JSON.stringify(put)).toBeFalsy();
      const got = (await client.callTool({
        name: 'thing_get',
        arguments: { org: 'acme', repo: 'web', name: 'Doc/via-oauth' },
      })) as CallToolResult;
      expect(got.structuredContent).toMatchObject({ content: 'signed in through mcp-remote' });

      // The tokens are in the temporary HOME's config dir, never in the real one, and no log shows them.
      const [file, ...more] = await savedFiles(b.configDir, '_tokens.json');
      expect(more).toEqual([]);
      const saved = JSON.parse(await readFile(file as string, 'utf8')) as { access_token: string; refresh_token: string };
      expect(decodeJwt(saved.access_token)).toMatchObject({ iss: url, aud: `${url}/mcp`, sub: 'alice' });
      expect(saved.refresh_token).toBeTruthy();
      expect(existsSync(join(homedir(), '.mcp-auth', 'mcp-remote-v1', (file as string).split('/').at(-1) as string))).toBe(false);
      for (const secret of [saved.access_token, saved.refresh_token, code]) {
        expect(stderr().includes(secret), 'a token value is in mcp-remote stderr').toBe(false);
        expect(serverStderr().includes(secret), 'a token value is in svc serve stderr').toBe(false);
      }
    });

    it('mcp-remote http://localhost:<port>/mcp (served as 127.0.0.1): localhost names the same resource, and it signs in', async () => {
      const b = await bridgeHome(join(home, '..', 'bridge-localhost'));
      const port = await freePort();
      const local = url.replace('//127.0.0.1:', '//localhost:');
      const started = await bridge(b, [String(port)], async () => (await b.opened())[0], `${local}/mcp`);
      expect(started.opened, `connected without a sign-in\n${started.tell()}`).toBeDefined();
      const asked = new URL(started.opened as string);
      // The client asks for the resource by the name it was given; the server issues for its one spelling.
      expect(asked.searchParams.get('resource')).toBe(`${local}/mcp`);
      const p = await page();
      const back = await consent(p, started.opened as string, port, 'approve');
      expect(back.searchParams.get('code')).toBeTruthy();
      await p.context().close();
      await started.connecting;
      const who = (await started.client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
      expect(who.structuredContent, started.tell()).toMatchObject({ kind: 'session', user: 'alice' });
      const [file] = await savedFiles(b.configDir, '_tokens.json');
      const saved = JSON.parse(await readFile(file as string, 'utf8')) as { access_token: string };
      expect(decodeJwt(saved.access_token)).toMatchObject({ iss: url, aud: `${url}/mcp` });
    });

    it('a denied consent makes mcp-remote exit 1 with "access_denied", not hang, and saves no token', async () => {
      const b = await bridgeHome(join(home, '..', 'bridge-deny'));
      const port = await freePort();
      const child = spawn(MCP_REMOTE, [`${url}/mcp`, String(port)], { env: b.env, stdio: ['pipe', 'pipe', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const ended = exited(child);
      const tell = (): string => `mcp-remote stderr:\n${stderr}`;
      const authUrl = await waitFor('mcp-remote to open the browser', async () => (await b.opened())[0], tell);

      const p = await page();
      const back = await consent(p, authUrl, port, 'deny', 'mcp-remote-deny');
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(await p.locator('body').innerText()).toContain('Authorization failed');
      await p.context().close();

      const bounded = new Promise<'hung'>((r) => setTimeout(() => r('hung'), FLOW_MS).unref());
      expect(await Promise.race([ended, bounded]), tell()).toEqual({ code: 1, signal: null });
      expect(stderr).toContain('Authorization failed: access_denied');
      expect(await savedFiles(b.configDir, '_tokens.json')).toEqual([]);
    });

    it('after the person ends the grant (svc auth sessions --revoke), the next mcp-remote start asks again', async () => {
      expect(signedIn, 'needs the first sign-in').toBeDefined();
      const { bridge: b, port, transport: first } = signedIn as NonNullable<typeof signedIn>;
      await first.close(); // the first mcp-remote exits: its tokens stay on disk, its callback port is free
      expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
      const listed = await svc(home, ['auth', 'sessions', '--json']);
      const grants = (JSON.parse(listed.stdout) as { id: string; name: string; status: string }[]).filter((x) =>
        x.name.startsWith('oauth-'),
      );
      // One grant per mcp-remote that signed in as alice on this server (the first one, and the localhost one).
      expect(grants.length, listed.stdout).toBeGreaterThanOrEqual(1);
      expect(new Set(grants.map((g) => g.status)), listed.stdout).toEqual(new Set(['active']));
      for (const grant of grants) {
        // `=`: an id is base64url and may begin with '-'.
        const revoked = await svc(home, ['auth', 'sessions', `--revoke=${grant.id}`]);
        expect(revoked.code, revoked.stderr).toBe(0);
      }

      const before = serverStderr().length;
      const again = await bridge(b, [String(port), ...WRITE_SCOPE], async () => (await b.opened())[1]);
      expect(again.opened, `mcp-remote reused a revoked grant\n${again.tell()}`).toBeDefined();
      const p = await page();
      await consent(p, again.opened as string, port, 'approve');
      await p.context().close();
      await again.connecting;
      // The saved access token was refused, then the saved refresh token (the grant is over): a new sign-in.
      const log = serverStderr().slice(before);
      expect(log).toMatch(/^POST \/mcp 401 .*\n(?:.*\n)*POST \/oauth\/token 400 /m);
      const who = (await again.client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
      expect(who.structuredContent, again.tell()).toMatchObject({ kind: 'session', user: 'alice' });
    });

    it('with --device-code (a browser that cannot reach its callback port) it prints a URL with the code; approving signs it in', async () => {
      const b = await bridgeHome(join(home, '..', 'bridge-device'));
      const device = await bridge(b, ['--device-code'], async (err) => /visit:\n\[\d+\] +(\S+)/.exec(err)?.[1]);
      expect(device.opened, device.tell()).toMatch(new RegExp(`^${url}/oauth/device\\?user_code=\\w{4}-\\w{4}$`));
      // JavaScript on, and still nothing submits itself: the link opens the server's own code page.
      const p = await page(true);
      await p.goto(device.opened as string);
      expect(await p.inputValue('input#user_code')).toMatch(/^\w{4}-\w{4}$/);
      await p.click('button[type=submit]');
      await p.click('button[value=yes][name=confirm]');
      await p.selectOption('select#user', 'alice');
      await p.click('button[type=submit]');
      expect(await p.locator('main').innerText()).toContain('a device or command line');
      await p.click('button[value=approve]');
      expect(await p.locator('h1').innerText()).toBe('Device connected');
      await p.context().close();
      await device.connecting;
      const who = (await device.client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
      expect(who.structuredContent, device.tell()).toMatchObject({ kind: 'session', user: 'alice' });
      expect(await b.opened(), 'no browser is opened on the machine of mcp-remote').toEqual([]);
    });
  },
);
