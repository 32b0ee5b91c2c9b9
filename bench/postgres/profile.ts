/**
 * Where a lone `authenticate`'s client CPU goes on PostgreSQL (issue 33 goal 2),
 * beside a lone `SELECT 1` through the same pool: the sequential loop of
 * goals.ts (distinct hot tokens, one call at a time), first timed with
 * `process.cpuUsage` without a profiler (rounds in turn, with the bare lean
 * probe and `store.readChain` between them as steps), then under the
 * inspector's sampling profiler, self time summed per group (pg driver, the
 * store, the service, node internals, GC, idle). Run by hand; prints markdown.
 *
 *   DATABASE_URL=… node --import tsx bench/postgres/profile.ts [--seconds=4] [--out=/tmp/pg-profile] [--rounds=5] [--cpu-only] [--write]
 *
 * `--write`: the output becomes the `postgres-profile` block of bench/RESULTS.md (where goal 2's time goes).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAuth } from '../../src/service/auth';
import { buildSql, parseTableName } from '../../src/stores/postgres/tokens/sql';
import { SHARED_READ, type SharedReadSource } from '../../src/stores/views';
import { label, type Profile, selfByNode } from '../peers/profile';
import { median } from '../timing';
import { runOf, stamp, writeResults } from '../results';
import type { Op } from './rounds';
import { DISTINCT_TOKENS, distinctTokens, openPgBench, POOL_SIZE } from './setup';

const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const SECONDS = Number(arg('seconds', '4'));
const OUT = arg('out', '/tmp/pg-profile');
const CPU_ROUNDS = Number(arg('rounds', '5'));
/** `--cpu-only`: the CPU table alone, no profiles (for comparing a change, with more `--rounds`). */
const CPU_ONLY = process.argv.includes('--cpu-only');
const SAMPLE_US = 100;
const ROOT = `${join(fileURLToPath(import.meta.url), '..', '..', '..')}/`;

const IDLE = 'idle (waiting on the socket)';

/** The group a sampled function belongs to, by its script (or its caller's, for V8's builtins). */
function groupOf(functionName: string, url: string, callerUrl: string): string {
  if (functionName === '(idle)') return IDLE;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return 'native, outside JS (program)';
  // Profiler.stop serialising the profile: the profiler's own cost, not the loop's.
  if (callerUrl === 'node:inspector') return 'the profiler itself';
  if (/\/node_modules\/pg(-[a-z]+)?\//.test(url)) return 'pg driver (pg, pg-pool, pg-protocol, pg-types)';
  if (url.includes('/node_modules/')) return 'other dependencies';
  if (url.includes('/src/stores/')) return 'svc-auth store (src/stores)';
  if (url.includes('/src/service/')) return 'svc-auth service (src/service)';
  if (url.includes('/src/')) return 'svc-auth, other (tokens, core)';
  if (url.includes('/bench/')) return 'bench loop';
  return 'node internals and builtins (node:*, V8; socket writes)';
}

interface Measured {
  calls: number;
  userUs: number;
  systemUs: number;
  wallUs: number;
}

/** Calls of `op` in turn for `ms`, and the client CPU they took (µs). */
async function loop(op: Op, ms: number): Promise<Measured> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  let calls = 0;
  while (performance.now() - t0 < ms) await op(calls++);
  const used = process.cpuUsage(cpu);
  return { calls, userUs: used.user, systemUs: used.system, wallUs: (performance.now() - t0) * 1000 };
}

function summary(name: string, profile: Profile, calls: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const groups = new Map<string, { us: number; fns: Map<string, number> }>();
  let sampled = 0;
  for (const [id, us] of selfByNode(profile)) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const caller = byId.get(parent.get(id) ?? -1);
    const group = groupOf(node.callFrame.functionName, node.callFrame.url, caller?.callFrame.url ?? '');
    const g = groups.get(group) ?? { us: 0, fns: new Map<string, number>() };
    groups.set(group, g);
    g.us += us;
    const fn = label(node, ROOT).replace(/ \S*\/node_modules\//, ' ');
    g.fns.set(fn, (g.fns.get(fn) ?? 0) + us);
    sampled += us;
  }
  const busy = sampled - (groups.get(IDLE)?.us ?? 0) - (groups.get('the profiler itself')?.us ?? 0);
  const per = (us: number): string => (us / calls).toFixed(1);
  const out = [
    `#### ${name}: ${calls.toLocaleString('en-US')} calls, ${per(sampled)} µs sampled per call, ${per(busy)} µs of it busy (profiler on)`,
    '',
  ];
  for (const [group, g] of [...groups].sort((a, b) => b[1].us - a[1].us)) {
    const top = [...g.fns].sort((a, b) => b[1] - a[1]).slice(0, group === IDLE ? 0 : 6);
    const share = group === IDLE || group === 'the profiler itself' ? '' : ` (${((100 * g.us) / busy).toFixed(1)}% of busy)`;
    out.push(`- **${group}**: ${per(g.us)} µs/call${share}`);
    for (const [fn, us] of top) out.push(`  - ${per(us)} µs ${fn}`);
  }
  out.push('');
  return out;
}

/** Each loop for {@link SECONDS} under the inspector's sampling profiler: its summary, and its profile in {@link OUT}. */
async function profiled(sides: readonly (readonly [string, string, Op])[]): Promise<string[]> {
  const lines = [
    `Then ${SECONDS} s of each under the inspector's sampling profiler (every ${SAMPLE_US} µs; profiles in ${OUT}). Samples are`,
    'wall time on the main thread: a socket write that wakes the server may be charged for the time the server ran instead.',
    '',
  ];
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLE_US });
  mkdirSync(OUT, { recursive: true });
  for (const [file, name, op] of sides) {
    await session.post('Profiler.start');
    const m = await loop(op, SECONDS * 1000);
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(OUT, `${file}.cpuprofile`), JSON.stringify(profile));
    lines.push(...summary(name, profile as unknown as Profile, m.calls));
  }
  session.disconnect();
  return lines;
}

const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
const bench = await openPgBench(url);
try {
  const { pool, store } = bench;
  const auth = createAuth({ issuer: 'https://svc.bench', keys: bench.keys, members: bench.members, tokens: store });
  const tokens = await distinctTokens(auth, DISTINCT_TOKENS);
  const ids = await Promise.all(tokens.map(async (t) => (await auth.authenticate(t)).tokenId as string));
  const lean = buildSql(parseTableName(bench.tableName)).readVersion;
  const sharedRead = (store as SharedReadSource)[SHARED_READ];
  if (sharedRead === undefined) throw new Error('the store offers no shared read');
  const shared = (id: string): Promise<unknown> => sharedRead.call(store, id, 60_000) ?? Promise.reject(new Error('declined'));
  // From the floor up: each loop adds one layer of the lone request's path.
  const sides: [string, string, Op][] = [
    ['select1', "`pool.query('SELECT 1')`", () => pool.query('SELECT 1')],
    [
      'lean',
      "bare `pg` lean probe (named, `rowMode: 'array'`)",
      (i) => pool.query({ name: 'svc_bench_lean', text: lean, values: [ids[i % ids.length]], rowMode: 'array' }),
    ],
    ['readchain', '`store.readChain` of a known token (fresh copies)', (i) => store.readChain(ids[i % ids.length] as string)],
    ['shared', "the store's shared read (`SHARED_READ`, what authenticate calls)", (i) => shared(ids[i % ids.length] as string)],
    ['authenticate', '`auth.authenticate` of a known token', (i) => auth.authenticate(tokens[i % tokens.length] as string)],
  ];
  for (const [, , op] of sides) await loop(op, 1000); // warm: JIT, every connection, the store's known records

  // Client CPU per call without a profiler: short rounds in turn, so drift hits every side alike.
  const rounds = sides.map(() => [] as Measured[]);
  for (let r = 0; r < CPU_ROUNDS; r++) for (const [i, [, , op]] of sides.entries()) rounds[i]?.push(await loop(op, 500));
  const med = (ms: Measured[], f: (m: Measured) => number): number => median(ms.map((m) => f(m) / m.calls));
  const lines = [
    '### Lone request on PostgreSQL: where the client CPU goes',
    '',
    `Pool of ${POOL_SIZE}, one call at a time; ${CPU_ROUNDS} rounds of 500 ms per loop in turn, medians per call`,
    '(`process.cpuUsage` of the whole process, no profiler):',
    '',
    '| loop | wall µs | CPU µs (user + system) | CPU vs `SELECT 1` | ratio to `SELECT 1` per round: wall, CPU |',
    '|---|---:|---:|---:|---:|',
  ];
  const floor = med(rounds[0] ?? [], (m) => m.userUs + m.systemUs);
  for (const [i, [, name]] of sides.entries()) {
    const ms = rounds[i] ?? [];
    const user = med(ms, (m) => m.userUs);
    const system = med(ms, (m) => m.systemUs);
    const cpu = med(ms, (m) => m.userUs + m.systemUs);
    // Per round against that round's SELECT 1 (the same moment of a shared machine), then the median.
    const ratio = (f: (m: Measured) => number): string =>
      median(ms.map((m, r) => f(m) / m.calls / (f(rounds[0]?.[r] ?? m) / (rounds[0]?.[r] ?? m).calls))).toFixed(2);
    const cpuOf = (m: Measured): number => m.userUs + m.systemUs;
    lines.push(
      `| ${name} | ${med(ms, (m) => m.wallUs).toFixed(1)} | ${cpu.toFixed(1)} (${user.toFixed(1)} + ${system.toFixed(1)}) | +${(cpu - floor).toFixed(1)} | ${ratio((m) => m.wallUs)}x, ${ratio(cpuOf)}x |`,
    );
  }
  if (!CPU_ONLY) lines.push('', ...(await profiled(sides)));
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--write')) {
    const command = `DATABASE_URL=… node --import tsx bench/postgres/profile.ts${CPU_ONLY ? ' --cpu-only' : ''} --write`;
    const md = ["## Where a lone PostgreSQL request's time goes (issue 33, goal 2)", '', ...lines.slice(2)].join('\n');
    writeResults(join(ROOT, 'bench', 'RESULTS.md'), [{ name: 'postgres-profile', md: stamp(md, runOf(command)), figures: {} }]);
  }
} finally {
  await bench.close();
}
