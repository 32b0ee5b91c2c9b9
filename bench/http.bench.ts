/**
 * Goal 5 of issue 12: the whole HTTP request. Two node:http servers in one
 * child process answer `GET /api/repos/acme/web/head`; one is guarded by
 * `requireAuth(auth, { permission: 'repo:read', … })` from the package root
 * (memory store, a hot PAT, roles from a synchronous source). autocannon, in
 * this process, loads them in turns on 127.0.0.1 (same connections, same
 * headers: the unguarded server receives the bearer header too and ignores it).
 * Rounds alternate which server goes first; the ratio of each round is
 * guarded/plain requests per second, and the table gives every round and the
 * median. Absolute numbers depend on the (shared) machine; the ratio is the result.
 *
 *   node --expose-gc --import tsx bench/http.bench.ts [--quick]
 */
import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 2 : 7;
const SECONDS = QUICK ? 2 : 4;
const CONNECTIONS = 16;
const PATH = '/api/repos/acme/web/head';

interface Ports {
  plain: number;
  guarded: number;
  token: string;
}

async function load(port: number, token: string, seconds: number): Promise<{ rps: number; non2xx: number; errors: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${PATH}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  return { rps: result.requests.average, non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

async function check(port: number, token: string | undefined, status: number): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}${PATH}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  await res.text();
  if (res.status !== status) throw new Error(`expected ${status} from port ${port}, got ${res.status}`);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/**
 * Run the benchmark and return its markdown section.
 *
 * @example
 * ```ts
 * console.log(await run());
 * ```
 */
export async function run(): Promise<string> {
  const child = fork(fileURLToPath(new URL('./http-server.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const ports = await new Promise<Ports>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Ports));
      child.once('exit', (code) => reject(new Error(`bench server exited (${String(code)})`)));
    });
    // Same answers first: both 200 with the token; the guard refuses without it and with a broken one.
    await check(ports.plain, ports.token, 200);
    await check(ports.guarded, ports.token, 200);
    await check(ports.guarded, undefined, 401);
    await check(ports.guarded, `${ports.token.slice(0, -2)}AA`, 401);
    await load(ports.plain, ports.token, 1);
    await load(ports.guarded, ports.token, 1);
    const rows: { plain: number; guarded: number; ratio: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['plain', 'guarded'] as const) : (['guarded', 'plain'] as const);
      const got: Partial<Record<'plain' | 'guarded', number>> = {};
      for (const which of order) {
        const res = await load(ports[which], ports.token, SECONDS);
        if (res.non2xx > 0 || res.errors > 0) throw new Error(`${which}: ${res.non2xx} non-2xx answers, ${res.errors} errors`);
        got[which] = res.rps;
      }
      rows.push({ plain: got.plain as number, guarded: got.guarded as number, ratio: (got.guarded as number) / (got.plain as number) });
    }
    const fmt = (n: number): string => Math.round(n).toLocaleString('en');
    const med = median(rows.map((x) => x.ratio));
    return [
      '## HTTP: a whole request behind `requireAuth` (goal 5)',
      '',
      `Two node:http servers in one child process answer \`GET ${PATH}\` with the same JSON; one is guarded by`,
      "`requireAuth(auth, { permission: 'repo:read', resource })` from `svc-auth` (memory store, one hot PAT with one",
      'scope entry, roles from a synchronous source). autocannon (in the parent process) loads each for',
      `${SECONDS} s with ${CONNECTIONS} connections on 127.0.0.1, the same bearer header to both, in ${ROUNDS} alternating rounds${QUICK ? ' (`--quick`)' : ''}.`,
      'Every answer was 200. Both servers share the machine with the load generator: compare the ratio, measured in',
      'the same run, not the absolute requests per second.',
      '',
      '| round | without auth: req/s | with `requireAuth`: req/s | ratio |',
      '|---:|---:|---:|---:|',
      ...rows.map((x, i) => `| ${i + 1} | ${fmt(x.plain)} | ${fmt(x.guarded)} | ${(x.ratio * 100).toFixed(1)}% |`),
      `| **median** | ${fmt(median(rows.map((x) => x.plain)))} | ${fmt(median(rows.map((x) => x.guarded)))} | **${(med * 100).toFixed(1)}%** (goal ≥ 90%: ${med >= 0.9 ? 'met' : 'missed'}) |`,
      '',
    ].join('\n');
  } finally {
    child.kill();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(await run());
}
