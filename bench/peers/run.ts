/**
 * The peer HTTP benchmark (issue 23): what a user choosing an auth layer
 * compares svc-auth with, request by request. In node:http, Express 5,
 * Fastify 5 and Hono (on @hono/node-server), the same route
 * (`GET /api/repos/acme/web/head`, JSON) is served
 *
 * - bare (no auth), and bare with one `SELECT 1` per request (a pool of 16);
 * - behind the framework's popular JWT middleware, EdDSA and HS256 (jose by hand
 *   for node:http, and for Express with EdDSA, which express-jwt lacks; express-jwt;
 *   @fastify/jwt, also with its `verify: { cache: true }`; hono/jwt): signature,
 *   `exp`, issuer, then the `scope` claim must hold `repo:read`;
 * - behind svc-auth's adapter with `repo:read` on `acme/web`, memory store and
 *   PostgreSQL store (pool of 16);
 * - behind better-auth's apiKey plugin on PostgreSQL (`verifyApiKey` with
 *   `{ repo: ['read'] }`, its tables in a schema of their own, dropped afterwards).
 *
 * Every variant gets 64 distinct hot credentials, and first proves it answers 401
 * without a credential and with a tampered one, and 200 with each of its
 * credentials (the bare references: 200); the run fails otherwise, and on any
 * non-2xx answer while timed. Each variant is its own server process pinned to
 * one core with `taskset` (autocannon on the other, in this process); rounds
 * rotate the order of the variants of a framework; the figures are medians over
 * rounds. Server CPU per request is the server process's CPU time (all its
 * threads, from `process.cpuUsage()` over IPC) over the requests it served.
 * Also: one request alone (svc-auth on PostgreSQL against one `SELECT 1` through
 * the same pool, in turn), and the client CPU of each, sequentially.
 *
 *   npm run bench:http                                # svc-auth from src/ (tsx), all of it
 *   npm run build && npm run bench:http -- --dist     # the built package, as users run it
 *   npm run bench:http -- --quick                     # 1 round of 2 s: checks the harness
 *
 * `--dist` resolves `svc-auth` through the package's own `exports` to dist/
 * (Node's package self-reference; dist/ is what `npm pack` ships), by running the
 * servers with bench/peers/tsconfig.dist.json, which maps no paths. The report
 * names the file `svc-auth` resolved to.
 *
 * Options: `--rounds=N` (5), `--seconds=S` (5), `--warmup=S` (2), `--connections=C`
 * (32), `--only=node,express,fastify,hono`, `--kinds=bare,svc-memory,…`
 * (bench/peers/variants.ts), `--server-core=1`, `--load-core=0`, `--no-pin`,
 * `--profile[=node/svc-memory,…]` (a CPU profile of those servers over the timed
 * rounds, summarised at the end; default node/bare and node/svc-memory; with `--write-profile` the summary is
 * written as the profile block of RESULTS.md, and nothing else), `--write` (write RESULTS.md
 * even when filtered), `--out=FILE` (write that file instead). PostgreSQL variants need
 * `DATABASE_URL`, and are left out (and said so) without it. A full run without filters
 * replaces the `peers` block of bench/RESULTS.md and the goals table computed from every
 * block's figures (bench/results.ts); anything else is printed only.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { PEER_HEADING } from '../report';
import { figure, runOf, stamp, takeFigures, writeResults } from '../results';
import { PATH } from './apps';
import { ProofSigner } from './dpop';
import { summarise } from './profile';
import { report, type Figures, type RunInfo } from './report';
import type { Lone, Ready, Request } from './server';
import { DATABASE_KINDS, FRAMEWORKS, KINDS, REFERENCE_KINDS, kindsOf, type Framework, type Kind } from './variants';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

function option(name: string): string | undefined {
  const hit = process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  return hit === undefined ? undefined : (hit.split('=')[1] ?? '');
}
function numberOption(name: string, fallback: number): number {
  const raw = option(name);
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number`);
  return n;
}
function listOption<T extends string>(name: string, all: readonly T[]): T[] | undefined {
  const raw = option(name);
  if (raw === undefined) return undefined;
  const got = raw.split(',').filter((x) => x !== '');
  for (const x of got) if (!all.includes(x as T)) throw new Error(`--${name}: unknown ${x} (one of ${all.join(', ')})`);
  return got as T[];
}

const quick = option('quick') !== undefined;
const dist = option('dist') !== undefined;
const rounds = numberOption('rounds', quick ? 1 : 5);
const seconds = numberOption('seconds', quick ? 2 : 5);
const warmup = numberOption('warmup', quick ? 1 : 2);
const connections = numberOption('connections', 32);
const only = listOption('only', FRAMEWORKS);
const kindsWanted = listOption('kinds', KINDS);
const serverCore = option('server-core') ?? '1';
const loadCore = option('load-core') ?? '0';
const profileOption = option('profile');
const profiled = new Set(
  profileOption === undefined ? [] : profileOption === '' ? ['node/bare', 'node/svc-memory'] : profileOption.split(','),
);
for (const p of profiled) {
  const [f, k] = p.split('/');
  if (!FRAMEWORKS.includes(f as Framework) || !KINDS.includes(k as Kind)) throw new Error(`--profile: ${p} is not <framework>/<kind>`);
}
const database = (process.env.DATABASE_URL ?? '') !== '';
const pin = option('no-pin') === undefined && cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0;

interface Server {
  framework: Framework;
  kind: Kind;
  child: ChildProcess;
  ready: Ready;
  ask(type: Request['type'], extra?: Omit<Request, 'id' | 'type'>): Promise<unknown>;
}

let profileDir: string | undefined;

async function startServer(framework: Framework, kind: Kind): Promise<Server> {
  const node = [process.execPath, '--import', 'tsx', join(here, 'server.ts'), framework, kind];
  const [command, ...args] = pin ? ['taskset', '-c', serverCore, ...node] : node;
  const child = spawn(command as string, args, {
    cwd: root,
    // The servers' own output goes to stderr: stdout is the report.
    stdio: ['ignore', 2, 2, 'ipc'],
    env: { ...process.env, ...(dist ? { TSX_TSCONFIG_PATH: join(here, 'tsconfig.dist.json') } : {}) },
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m: Ready) => resolve(m));
    child.once('exit', (code) => reject(new Error(`${framework}/${kind}: the server exited (${String(code)}) before it was ready`)));
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: { type: string; id: number; value?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    if (m.type !== 'reply' || w === undefined) return;
    waiting.delete(m.id);
    if (m.error === undefined) w.resolve(m.value);
    else w.reject(new Error(`${framework}/${kind}: ${m.error}`));
  });
  child.on('exit', () => {
    for (const w of waiting.values()) w.reject(new Error(`${framework}/${kind}: the server exited`));
  });
  const ask = (type: Request['type'], extra: Omit<Request, 'id' | 'type'> = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      child.send({ id, type, ...extra } satisfies Request);
    });
  return { framework, kind, child, ready, ask };
}

async function stopServer(s: Server): Promise<void> {
  if (s.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  s.ask('stop').catch(() => undefined);
  const timer = setTimeout(() => s.child.kill(), 15_000);
  await exited;
  clearTimeout(timer);
}

async function status(port: number, token: string | undefined, signer?: ProofSigner): Promise<number> {
  const headers: Record<string, string> =
    token === undefined
      ? {}
      : signer === undefined
        ? { authorization: `Bearer ${token}` }
        : { authorization: `DPoP ${token}`, dpop: signer.proof(token) };
  const res = await fetch(`http://127.0.0.1:${port}${PATH}`, { headers });
  await res.arrayBuffer();
  return res.status;
}

const tampered = (t: string): string => `${t.slice(0, -2)}${t.endsWith('AA') ? 'BB' : 'AA'}`;

/** The proof before timing: the guard refuses what it must, and serves every credential of the run. */
async function prove(s: Server): Promise<void> {
  const name = `${s.framework}/${s.kind}`;
  const { port, tokens } = s.ready;
  const signer = signerOf(s);
  const expect = async (token: string | undefined, want: number, what: string): Promise<void> => {
    const got = await status(port, token, signer);
    if (got !== want) throw new Error(`${name}: ${what} answered ${got}, not ${want}`);
  };
  if (!REFERENCE_KINDS.includes(s.kind)) {
    await expect(undefined, 401, 'a request without a credential');
    await expect(tampered(tokens[0] as string), 401, 'a tampered credential');
  }
  for (const t of tokens) await expect(t, 200, 'a request with a credential');
  // A key-bound token: refused as Bearer, and with a proof of another request.
  if (signer !== undefined) {
    if ((await status(port, tokens[0])) !== 401) throw new Error(`${name}: a bound token sent as Bearer was not refused`);
  }
}

/** The proof signer of a `svc-bound` server, once per server. */
const signers = new WeakMap<Server, ProofSigner>();
function signerOf(s: Server): ProofSigner | undefined {
  if (s.ready.dpop === undefined) return undefined;
  let signer = signers.get(s);
  if (signer === undefined) signers.set(s, (signer = new ProofSigner(s.ready.dpop, `http://127.0.0.1:${s.ready.port}${PATH}`)));
  return signer;
}

/** The most requests per second any server has been seen to serve here: sizes the proof pools. */
let fastestRps = 20_000;

interface Measured {
  rps: number;
  cpuUs: number;
}

async function measure(s: Server, duration: number): Promise<Measured> {
  const signer = signerOf(s);
  // Each connection cycles through every credential: distinct hot credentials, as real traffic carries.
  // A bound token needs a proof per request, signed before the window (twice the fastest rate seen).
  const requests =
    signer === undefined
      ? s.ready.tokens.map((t) => ({ method: 'GET' as const, headers: { authorization: `Bearer ${t}` } }))
      : signer.requests(s.ready.tokens, Math.ceil((2 * fastestRps * duration) / s.ready.tokens.length));
  const before = (await s.ask('cpu')) as number;
  const result = await autocannon({ url: `http://127.0.0.1:${s.ready.port}${PATH}`, connections, duration, requests });
  const after = (await s.ask('cpu')) as number;
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0)
    throw new Error(`${s.framework}/${s.kind}: ${result.non2xx} non-2xx answers, ${result.errors + result.timeouts} errors while timed`);
  const total = result.requests.total;
  if (total === 0) throw new Error(`${s.framework}/${s.kind}: no request answered`);
  fastestRps = Math.max(fastestRps, total / result.duration);
  return { rps: total / result.duration, cpuUs: (after - before) / total };
}

const log = (line: string): void => {
  process.stderr.write(`bench:http ${line}\n`);
};

if (dist && !existsSync(join(root, 'dist', 'index.js'))) throw new Error('--dist measures the built package: run `npm run build` first');

// The load generator on its core, every thread of this process; the servers on theirs.
if (pin) execFileSync('taskset', ['-a', '-p', '-c', loadCore, String(process.pid)], { stdio: 'ignore' });

const frameworks = only ?? [...FRAMEWORKS];
const skipped: string[] = [];
if (!database) skipped.push('the PostgreSQL variants (`select1`, `svc-postgres`, `better-auth`): set `DATABASE_URL` to run them');
const results = new Map<Framework, Map<Kind, Figures>>();
let lone: Lone | undefined;
let resolved = '';
for (const framework of frameworks) {
  const kinds = kindsOf(framework).filter(
    (k) => (kindsWanted === undefined || kindsWanted.includes(k)) && (database || !DATABASE_KINDS.includes(k)),
  );
  if (kinds.length === 0) continue;
  log(`${framework}: starting ${kinds.join(', ')}`);
  const servers: Server[] = [];
  try {
    const started = await Promise.allSettled(kinds.map((k) => startServer(framework, k)));
    for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    resolved = servers[0]?.ready.resolved ?? resolved;
    for (const s of servers) await prove(s);
    log(`${framework}: every variant answers as it must; warming up`);
    for (const s of servers) await measure(s, warmup);
    const figures = new Map<Kind, Figures>(servers.map((s) => [s.kind, { rps: [], cpuUs: [] }]));
    const profiling = servers.filter((s) => profiled.has(`${s.framework}/${s.kind}`));
    for (const s of profiling) await s.ask('profile-start');
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < servers.length; k++) {
        const s = servers[(k + r) % servers.length] as Server;
        const m = await measure(s, seconds);
        const f = figures.get(s.kind) as Figures;
        f.rps.push(m.rps);
        f.cpuUs.push(m.cpuUs);
        log(`${framework} round ${r + 1}/${rounds} ${s.kind}: ${Math.round(m.rps)} req/s, ${m.cpuUs.toFixed(1)} µs CPU/request`);
      }
    }
    for (const s of profiling) {
      profileDir ??= mkdtempSync(join(tmpdir(), 'svc-auth-peers-profile-'));
      await s.ask('profile-stop', { file: join(profileDir, `${s.framework}-${s.kind}.cpuprofile`) });
    }
    results.set(framework, figures);
    const pgServer = servers.find((s) => s.kind === 'svc-postgres');
    if (lone === undefined && pgServer !== undefined) {
      log(`${framework}: one request alone, svc-auth on PostgreSQL against one SELECT 1`);
      lone = (await pgServer.ask('lone', { rounds: Math.max(rounds, 3), ms: quick ? 600 : 1500 })) as Lone;
    }
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

// The command that regenerates this run's figures (where they were written is no part of it).
const args = process.argv.slice(2).filter((a) => !a.startsWith('--out'));
const info: RunInfo = {
  date: new Date().toISOString().slice(0, 10),
  machine: `${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}`,
  command: `npm run bench:http${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`,
  build: dist ? 'dist' : 'src',
  resolved: resolved === '' ? '' : relative(root, fileURLToPath(resolved)),
  pinned: pin
    ? `servers on core ${serverCore}, autocannon on core ${loadCore} (taskset)`
    : 'not pinned (no taskset, one core, or --no-pin)',
  rounds,
  seconds,
  connections,
  skipped,
  profiled: profiled.size > 0,
};
const section = stamp(report(results, lone, info), runOf(info.command));
process.stdout.write(`${section}\n`);
const profileSummary = profileDir === undefined ? undefined : summarise(profileDir);
if (profileSummary !== undefined) process.stdout.write(`\n${profileSummary}\n`);
// `--write-profile`: the summary alone becomes the profile block of RESULTS.md (the peers block is left as it is).
if (profileSummary !== undefined && option('write-profile') !== undefined) {
  const file = join(root, 'bench', 'RESULTS.md');
  const md = [
    "## Where a guarded request's time goes (issue 33, goal 1)",
    '',
    'CPU profiles of the servers named, over the timed rounds of the run below (V8 samples of the main thread;',
    "a worker thread, such as WebCrypto's, is not in them). Shares are of the busy time, idle left out.",
    '',
    profileSummary,
  ].join('\n');
  writeResults(file, [{ name: 'profile', md: stamp(md, runOf(info.command)), figures: {} }]);
  log(`wrote the profile block of ${file}`);
}
const full = !quick && only === undefined && kindsWanted === undefined && profiled.size === 0;
const out = option('out');
if (full || option('write') !== undefined || out !== undefined) {
  for (const [framework, byKind] of results) {
    for (const [kind, f] of byKind) figure(`peers.cpu.${framework}.${kind}`, medianOf(f.cpuUs));
  }
  if (lone !== undefined) figure('peers.lone.ratio', lone.ratio);
  const file = out === undefined || out === '' ? join(root, 'bench', 'RESULTS.md') : resolve(out);
  writeResults(file, [{ name: 'peers', md: section, figures: takeFigures() }]);
  log(`wrote the "${PEER_HEADING}" block of ${file}`);
}

function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
