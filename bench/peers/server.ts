/**
 * One server of the peer HTTP benchmark, in a process of its own (pinned to
 * its core by bench/peers/run.ts, which starts it). Arguments: the framework
 * and the kind (bench/peers/variants.ts). Over IPC it sends
 * `{ type: 'ready', port, tokens, resolved }` once listening, then answers
 * `cpu` (this process's CPU time so far), `lone` (svc-postgres only: one
 * request alone against one `SELECT 1` through the same pool), `profile-start`
 * and `profile-stop` (a CPU profile of the main thread between the two, written
 * to `file`: the timed rounds only, not the start-up) and `stop`.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createAuth, generateKeyRing, type Auth } from 'svc-auth';
import { start } from './apps';
import { ISSUER, SCOPE, TOKENS, setUp, type DpopKey, type Setup } from './credentials';
import { FRAMEWORKS, KINDS, type Framework, type Kind } from './variants';

export interface Request {
  id: number;
  type: 'cpu' | 'lone' | 'profile-start' | 'profile-stop' | 'stop';
  rounds?: number;
  ms?: number;
  /** `profile-stop`: where to write the `.cpuprofile`. */
  file?: string;
}

export interface Ready {
  type: 'ready';
  port: number;
  tokens: string[];
  /** Where `svc-auth` resolved from: src/ under tsx, dist/ with `--dist`. */
  resolved: string;
  /** `svc-bound`: the key the tokens are bound to (the load generator signs a proof per request). */
  dpop?: DpopKey;
}

/** One request alone: medians over rounds, µs. */
export interface Lone {
  /** Wall time of one `authenticate` + `authorize` on PostgreSQL, and of one `SELECT 1`, taken in turn. */
  authUs: number;
  selectUs: number;
  /** Median of the per-round ratios, and their spread. */
  ratio: number;
  min: number;
  max: number;
  /** Client CPU per operation, sequential: PostgreSQL store, memory store, bare `SELECT 1`. */
  cpuPostgresUs: number;
  cpuMemoryUs: number;
  cpuSelectUs: number;
}

const [framework, kind] = process.argv.slice(2) as [Framework, Kind];
if (!FRAMEWORKS.includes(framework) || !KINDS.includes(kind))
  throw new Error(`usage: server.ts <${FRAMEWORKS.join('|')}> <${KINDS.join('|')}>`);

const setup = await setUp(kind);
const running = await start(framework, kind, setup);

const cpuNow = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

/** A memory-store twin of the PostgreSQL service: same roles, same kind of tokens, hot. */
async function memoryTwin(): Promise<{ auth: Auth; tokens: string[] }> {
  const auth = createAuth({
    issuer: ISSUER,
    keys: await generateKeyRing(),
    members: { rolesOf: () => ({ orgs: { acme: 'editor' as const } }) },
  });
  const me = await auth.authenticate(await auth.issueSession('alice'));
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    tokens.push(
      (await auth.client(me).token.create({ name: `twin-${i}`, scopes: [{ resource: 'acme/web', permissions: [SCOPE] }] })).token,
    );
  }
  return { auth, tokens };
}

/** What the guard does for one request: authenticate the bearer token, then authorize the route. */
async function guardOnce(auth: Auth, token: string): Promise<void> {
  const principal = await auth.authenticate(token);
  const decision = auth.authorize(principal, 'acme/web', SCOPE);
  if (!decision.allowed) throw new Error('the benchmark token is refused');
}

async function lone(s: Setup, rounds: number, ms: number): Promise<Lone> {
  const auth = s.auth;
  const pool = s.pool;
  if (auth === undefined || pool === undefined) throw new Error('`lone` needs the svc-postgres variant');
  const twin = await memoryTwin();
  let i = 0;
  const viaPostgres = (): Promise<void> => guardOnce(auth, s.tokens[i++ % s.tokens.length] as string);
  const viaMemory = (): Promise<void> => guardOnce(twin.auth, twin.tokens[i++ % twin.tokens.length] as string);
  const select = async (): Promise<void> => {
    await pool.query('SELECT 1');
  };
  for (let k = 0; k < 200; k++) {
    await viaPostgres();
    await viaMemory();
    await select();
  }
  /** CPU µs per op of `op` run alone, one at a time, for `budget` ms. */
  const cpuPerOp = async (op: () => Promise<void>, budget: number): Promise<number> => {
    let n = 0;
    const c0 = cpuNow();
    const until = performance.now() + budget;
    while (performance.now() < until) {
      await op();
      n++;
    }
    return (cpuNow() - c0) / n;
  };
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  const cpu = { pg: [] as number[], mem: [] as number[], sel: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    // Latency: one of each in turn, so both see the same moment of a shared machine.
    let ta = 0;
    let tb = 0;
    let n = 0;
    while (ta + tb < ms) {
      const t0 = performance.now();
      await viaPostgres();
      const t1 = performance.now();
      await select();
      tb += performance.now() - t1;
      ta += t1 - t0;
      n++;
    }
    a.push((ta * 1000) / n);
    b.push((tb * 1000) / n);
    ratios.push(ta / tb);
    cpu.pg.push(await cpuPerOp(viaPostgres, ms / 3));
    cpu.mem.push(await cpuPerOp(viaMemory, ms / 3));
    cpu.sel.push(await cpuPerOp(select, ms / 3));
  }
  return {
    authUs: median(a),
    selectUs: median(b),
    ratio: median(ratios),
    min: Math.min(...ratios),
    max: Math.max(...ratios),
    cpuPostgresUs: median(cpu.pg),
    cpuMemoryUs: median(cpu.mem),
    cpuSelectUs: median(cpu.sel),
  };
}

let profiler: Session | undefined;

async function profileStart(): Promise<void> {
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  // 200 µs between samples: several samples per request.
  await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  await profiler.post('Profiler.start');
}

async function profileStop(file: string): Promise<void> {
  if (profiler === undefined) throw new Error('no profile was started');
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  profiler.disconnect();
  profiler = undefined;
}

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  stopping ??= (async () => {
    await running.close();
    await setup.close();
  })();
  return stopping;
}

process.on('message', (m: Request) => {
  const reply = (value: unknown): void => {
    process.send?.({ type: 'reply', id: m.id, value });
  };
  const fail = (err: unknown): void => {
    process.send?.({ type: 'reply', id: m.id, error: err instanceof Error ? err.message : String(err) });
  };
  switch (m.type) {
    case 'cpu':
      return reply(cpuNow());
    case 'lone':
      return void lone(setup, m.rounds ?? 5, m.ms ?? 1000).then(reply, fail);
    case 'profile-start':
      return void profileStart().then(reply, fail);
    case 'profile-stop':
      return void profileStop(m.file ?? 'server.cpuprofile').then(reply, fail);
    case 'stop':
      return void stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
  }
});
process.on('disconnect', () => void stop().finally(() => process.exit(0)));

const resolved = import.meta.resolve('svc-auth');
process.send?.({
  type: 'ready',
  port: running.port,
  tokens: setup.tokens,
  resolved,
  ...(setup.dpop === undefined ? {} : { dpop: setup.dpop }),
} satisfies Ready);
