/**
 * Authentications per second with the PostgreSQL token store, beside the
 * memory store, with a hot verified-signature cache: what is left is the
 * record read (one recursive query), the role lookup and building the grant.
 * Also counts the statements one `authenticate` sends (the goal is exactly one).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/postgres.bench.ts
 */
import { pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { createAuth } from '../src/service/auth';
import type { Auth } from '../src/service';
import type { Principal } from '../src/core/policy/subject';
import { goalRatios } from './postgres/goals';
import { DISTINCT_TOKENS, distinctTokens, IN_FLIGHT, openPgBench, POOL_SIZE } from './postgres/setup';

const COUNTED_CALLS = 200;

interface Engine {
  name: string;
  auth: Auth;
  token: string;
}

/** What an authenticate answer means, without the ids that differ per store. */
function meaning(auth: Auth, p: Principal): string {
  const probes: [string, string, string?][] = [
    ['acme/web', 'repo:read'],
    ['acme/web', 'repo:write'],
    ['acme/web', 'repo:read', 'Doc/readme'],
    ['acme/web', 'repo:read', 'Secret/key'],
    ['acme/api', 'repo:read'],
    ['acme', 'org:read'],
  ];
  return JSON.stringify({
    kind: p.kind,
    userId: p.userId,
    tokenName: p.tokenName,
    // Whole days left: the two engines issue their tokens a moment apart, maybe across a second.
    expiresInDays: Math.round((p.expiresAt.getTime() - Date.now()) / 86_400_000),
    decisions: probes.map(([r, perm, thing]) => auth.authorize(p, r, perm, thing)),
  });
}

async function makeEngine(name: string, auth: Auth): Promise<Engine> {
  const session = await auth.client(await auth.authenticate(await auth.issueSession('alice'))).token.create({
    name: 'bench',
    expiresIn: '30d',
    scopes: [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/**'] }],
  });
  return { name, auth, token: session.token };
}

function nsPerOp(bench: Bench, taskName: string, perCall: number): number {
  const task = bench.tasks.find((t) => t.name === taskName);
  const result = task?.result;
  if (result === undefined || (result.state !== 'completed' && result.state !== 'aborted-with-statistics')) {
    throw new Error(`bench task ${taskName} did not complete`);
  }
  return (result.latency.mean * 1e6) / perCall;
}

/**
 * Run the benchmark and return its markdown section.
 *
 * @example
 * ```ts
 * console.log(await run());
 * ```
 */
export async function run(): Promise<string> {
  const title = '## PostgreSQL token store: authenticate';
  const url = process.env.DATABASE_URL;
  if (!url) return `${title}\n\nSkipped: set \`DATABASE_URL\` (e.g. \`postgres://postgres@127.0.0.1:5432/test\`) to run it.\n`;

  const { pool, sent, store, tableName, keys, members, close } = await openPgBench(url);
  try {
    const engines = [
      await makeEngine('memory store', createAuth({ issuer: 'https://svc.bench', keys, members })),
      await makeEngine('PostgreSQL store', createAuth({ issuer: 'https://svc.bench', keys, members, tokens: store })),
    ];

    // Same answers first; the signature caches get hot on the way.
    const answers = await Promise.all(engines.map(async (e) => meaning(e.auth, await e.auth.authenticate(e.token))));
    if (new Set(answers).size !== 1) throw new Error(`engines disagree:\n${answers.join('\n')}`);

    const pgEngine = engines[1] as Engine;
    sent.count = 0;
    for (let i = 0; i < COUNTED_CALLS; i++) await pgEngine.auth.authenticate(pgEngine.token);
    const perAuth = sent.count / COUNTED_CALLS;

    const bench = new Bench({ time: 1500, warmupTime: 300 });
    for (const e of engines) {
      bench.add(`${e.name} sequential`, async () => {
        await e.auth.authenticate(e.token);
      });
      bench.add(`${e.name} ${IN_FLIGHT} in flight`, async () => {
        await Promise.all(Array.from({ length: IN_FLIGHT }, () => e.auth.authenticate(e.token)));
      });
    }
    // The floor of any store read: one round trip through the same pool.
    bench.add('SELECT 1 sequential', async () => {
      await pool.query('SELECT 1');
    });
    bench.add(`SELECT 1 ${IN_FLIGHT} in flight`, async () => {
      await Promise.all(Array.from({ length: IN_FLIGHT }, () => pool.query('SELECT 1')));
    });
    await bench.run();

    const rows: string[] = [];
    for (const [mode, perCall] of [
      ['sequential', 1],
      [`${IN_FLIGHT} in flight`, IN_FLIGHT],
    ] as const) {
      const floor = nsPerOp(bench, `memory store ${mode}`, perCall);
      for (const e of [...engines.map((x) => x.name), 'SELECT 1']) {
        const ns = nsPerOp(bench, `${e} ${mode}`, perCall);
        const label = e === 'SELECT 1' ? '`SELECT 1` alone (one round trip, no store)' : e;
        rows.push(
          `| ${label} | ${mode} | ${Math.round(ns).toLocaleString('en-US')} | ${Math.round(1e9 / ns).toLocaleString('en-US')} | ${(ns / floor).toFixed(1)}x |`,
        );
      }
    }
    const goals = await goalRatios(url, pool, pgEngine.auth, await distinctTokens(pgEngine.auth, DISTINCT_TOKENS), store, tableName);
    return [
      title,
      '',
      `One PAT with one scope entry, verified-signature cache hot, roles from a constant source; pool of ${POOL_SIZE}`,
      'connections to a local PostgreSQL. Ratio against the memory store in the same mode (lower is faster).',
      '',
      '| store | mode | ns/op | authenticate/s | vs memory |',
      '|---|---|---:|---:|---:|',
      ...rows,
      '',
      `Statements sent per sequential authenticate (PostgreSQL, counted over ${COUNTED_CALLS} calls): **${perAuth}**${perAuth === 1 ? ' (the goal: one round trip)' : ' (goal: 1)'}.`,
      '',
      goals,
    ].join('\n');
  } finally {
    await close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(await run());
}
