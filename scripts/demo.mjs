#!/usr/bin/env node
// `npm run demo`: the whole main job of svc-auth, end to end, with the real
// built `svc` (dist/cli.js) and its reference server, in a throw-away SVC_HOME.
// Each step prints the command it runs and what came back.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = process.env.SVC_DEMO_CLI ?? join(root, 'dist', 'cli.js');
if (!existsSync(cli)) {
  console.error(`demo: ${cli} not found: run 'npm run build' first`);
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
const env = { ...process.env, SVC_HOME: join(dir, 'home'), NO_COLOR: '1' };
for (const k of ['SVC_TOKEN', 'SVC_DATABASE_URL', 'SVC_NOW', 'SVC_ALLOW_TEST_CLOCK']) delete env[k];
let server;
let serverLog = '';
let step = 0;

const show = (text) =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
const mask = (token) => `${token.slice(0, 12)}…${token.slice(-6)}`;

function svc(args, { quietToken = false } = {}) {
  step += 1;
  console.log(`\n${step}. $ svc ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8' });
  const out = quietToken ? mask(r.stdout.trim()) : r.stdout;
  if (out.trim()) console.log(show(out));
  if (r.stderr.trim()) console.log(show(r.stderr));
  console.log(`    (exit ${r.status})`);
  if (r.status !== 0) throw new Error(`svc ${args[0]} ${args[1] ?? ''} failed`);
  return r.stdout.trim();
}

async function get(url, token) {
  step += 1;
  console.log(`\n${step}. $ curl -H "Authorization: Bearer $T" ${url}`);
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const www = res.headers.get('www-authenticate');
  console.log(`    HTTP ${res.status}${www ? `  WWW-Authenticate: ${www}` : ''}`);
  console.log(show(await res.text()));
  return res.status;
}

function startServer() {
  step += 1;
  console.log(`\n${step}. $ svc serve --port 0 &`);
  return new Promise((done, fail) => {
    server = spawn(process.execPath, [cli, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    server.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /^(http:\/\/\S+)\nlistening on \1\n/.exec(out);
      if (m) {
        console.log(show(m[0]));
        done(m[1]);
      }
    });
    server.stderr.setEncoding('utf8').on('data', (d) => (serverLog += d));
    server.on('exit', (code) => fail(new Error(`svc serve exited with ${code}`)));
  });
}

async function main() {
  console.log(`svc-auth demo: SVC_HOME=${env.SVC_HOME} (a temporary folder)`);
  svc(['member', 'set', '--user', 'alice', '--resource', 'acme', '--role', 'editor']);
  svc(['auth', 'login', '--user', 'alice']);
  const token = svc(['token', 'create', '--name', 'ci', '--scope', 'acme/web=repo:read'], { quietToken: true });
  console.log('    (T holds the token; shown shortened here)');
  svc(['token', 'list']);
  const base = await startServer();
  const url = `${base}/api/repos/acme/web/head`;
  const before = await get(url, token);
  // The server records last use off the request path and writes it within about a second.
  await new Promise((r) => setTimeout(r, 1500));
  svc(['token', 'list']);
  svc(['token', 'revoke', '--name', 'ci']);
  const after = await get(url, token);
  svc(['token', 'get', '--name', 'ci']);
  if (before !== 200 || after !== 401) throw new Error(`expected 200 then 401, got ${before} then ${after}`);
  console.log('\ndemo: ok: the token answered 200, and 401 on the very next request after revoke');
}

try {
  await main();
} catch (err) {
  console.error(`\ndemo: failed: ${err.message}`);
  process.exitCode = 1;
} finally {
  if (server && server.exitCode === null) {
    server.removeAllListeners('exit');
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  if (serverLog.trim()) console.log(`\nserver log (stderr of svc serve, one line per request):\n${show(serverLog)}`);
  rmSync(dir, { recursive: true, force: true });
}
