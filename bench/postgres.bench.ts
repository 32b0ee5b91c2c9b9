/**
 * Authentications per second with the PostgreSQL token store, beside the
 * memory store, with a hot verified-signature cache: what is left is the
 * record read (one recursive query), the role lookup and building the grant.
 * Also counts the statements one `authenticate` sends (the goal is exactly one).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/postgres.bench.ts
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Bench } from 'tinybench';
import { createAuth } from '../src/service/auth';
import type { Auth } from '../src/service';
import type { Principal } from '../src/core/policy/subject';
import { PostgresTokenStore } from '../src/stores/postgres/tokens/store';
import { COLUMNS, buildSql, parseTableName } from '../src/stores/postgres/tokens/sql';
import { generateKeyRing } from '../src/tokens/keys/keyring';
import { countedPool } from './counted-pool';
import { figure } from './results';
import { median, rate } from './timing';

const IN_FLIGHT = 32;
const POOL_SIZE = 16;
const COUNTED_CALLS = 200;
/** Distinct hot tokens for the goal runs, as a user's traffic would carry. */
const DISTINCT_TOKENS = 64;
/** Alternating rounds per goal: each round times both sides back to back, so load drift hits both. */
const ROUNDS = 9;
const ROUND_MS = 250;

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
    expiresAt: p.expiresAt.getTime(),
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

  const { pool, sent } = countedPool(url, POOL_SIZE);
  const table = `svc_tokens_bench_${randomBytes(4).toString('hex')}`;
  try {
    const store = new PostgresTokenStore({ pool, table });
    await store.migrate();
    const keys = await generateKeyRing();
    const members = { rolesOf: () => ({ orgs: { acme: 'owner' as const } }) };
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
    const goals = await goalRatios(pool, pgEngine.auth, await distinctTokens(pgEngine.auth, DISTINCT_TOKENS), store, table);
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
    await pool.query(`DROP TABLE IF EXISTS "${table}"`).catch(() => undefined);
    await pool.end();
  }
}

/** Hot PATs of one user, each with its own record (so reads are of distinct ids). */
async function distinctTokens(auth: Auth, n: number): Promise<string[]> {
  const session = await auth.authenticate(await auth.issueSession('alice'));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const { token } = await auth
      .client(session)
      .token.create({ name: `goal-${i}`, scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    await auth.authenticate(token); // signature cache hot
    out.push(token);
  }
  return out;
}

/** Operations per second of `a` and of `b`, run one after the other in turn for `ms` each. */
async function interleaved(a: (i: number) => Promise<unknown>, b: () => Promise<unknown>, ms: number): Promise<[number, number]> {
  let ta = 0;
  let tb = 0;
  let n = 0;
  while (ta + tb < 2 * ms) {
    const t0 = performance.now();
    await a(n);
    const t1 = performance.now();
    await b();
    tb += performance.now() - t1;
    ta += t1 - t0;
    n++;
  }
  return [(n * 1000) / ta, (n * 1000) / tb];
}

/**
 * Goals 1 and 2 of issue 12, as ratios measured in alternating rounds on one
 * pool: `authenticate` over distinct hot tokens against bare `SELECT 1`.
 */
async function goalRatios(pool: pg.Pool, auth: Auth, tokens: string[], store: PostgresTokenStore, tableName: string): Promise<string> {
  const table = store.table;
  const authOp = (i: number): Promise<unknown> => auth.authenticate(tokens[i % tokens.length] as string);
  const selectOp = (): Promise<unknown> => pool.query('SELECT 1');
  const out: string[] = [];
  const rows: string[] = [];
  for (const [label, inFlight] of [
    ['sequential', 1],
    [`${IN_FLIGHT} in flight`, IN_FLIGHT],
  ] as const) {
    const ratios: number[] = [];
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Sequential: one of each in turn, so both see the same moment of a shared machine.
      const [x, y] =
        inFlight === 1
          ? await interleaved(authOp, selectOp, ROUND_MS)
          : [await rate(authOp, inFlight, ROUND_MS), await rate(selectOp, inFlight, ROUND_MS)];
      a.push(x);
      b.push(y);
      ratios.push(x / y);
    }
    const ratio = median(ratios);
    if (inFlight !== 1) figure('postgres.inflight.ratio', ratio);
    // Sequential is shown as time per op (authenticate / SELECT 1), the inverse of the rate ratio.
    const shown = inFlight === 1 ? ratios.map((r) => 1 / r) : ratios;
    const spread = `per-round ${Math.min(...shown).toFixed(2)}–${Math.max(...shown).toFixed(2)}`;
    rows.push(
      inFlight === 1
        ? `| 2. sequential: time of one authenticate vs one \`SELECT 1\` round trip | ${Math.round(1e6 / median(a))} µs vs ${Math.round(1e6 / median(b))} µs | **${(1 / ratio).toFixed(2)}x** (${spread}) | at most 1.20x | ${1 / ratio <= 1.2 ? 'met' : 'missed'} |`
        : `| 1. ${label}: authenticate/s vs \`SELECT 1\`/s | ${Math.round(median(a)).toLocaleString('en-US')} vs ${Math.round(median(b)).toLocaleString('en-US')} | **${ratio.toFixed(2)}x** (${spread}) | at least 1.00x | ${ratio >= 1 ? 'met' : 'missed'} |`,
    );
  }
  // References for goal 2, each against the same SELECT 1, in turn: what one record read costs
  // through bare pg (every column the full read returns; the lean probe the store sends for a
  // known token), and the store's readChain alone, without the service around it.
  const ids = await Promise.all(tokens.slice(0, 8).map(async (t) => (await auth.authenticate(t)).tokenId as string));
  const pkText = `SELECT ${COLUMNS} FROM ${table} WHERE id = $1`;
  const leanText = buildSql(parseTableName(tableName)).readVersion;
  const references: [string, (i: number) => Promise<unknown>, string][] = [
    [
      "one bare `pg` primary-key read of a record's columns",
      (i) => pool.query({ name: 'svc_bench_pk', text: pkText, values: [ids[i % ids.length]] }),
      'what reading a whole record costs here',
    ],
    [
      "one bare `pg` run of the store's lean probe (version and `revoked_at` by primary key)",
      (i) => pool.query({ name: 'svc_bench_lean', text: leanText, values: [ids[i % ids.length]] }),
      'the statement a known token costs',
    ],
    [
      '`store.readChain` of a known token, without the service',
      (i) => store.readChain(ids[i % ids.length] as string),
      'the store around that statement',
    ],
  ];
  for (const [label, op, note] of references) {
    const refRatios: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const [x, y] = await interleaved(op, selectOp, ROUND_MS);
      refRatios.push(y / x);
    }
    rows.push(
      `| reference: ${label} vs one \`SELECT 1\` | | **${median(refRatios).toFixed(2)}x** (per-round ${Math.min(...refRatios).toFixed(2)}–${Math.max(...refRatios).toFixed(2)}) | | ${note} |`,
    );
  }
  out.push(
    '### PostgreSQL goals (issue 12)',
    '',
    `${tokens.length} distinct hot PATs of one user (signature cache hot), pool of ${POOL_SIZE}, bare \`pg\` \`SELECT 1\` on the same pool as the peer.`,
    `${ROUNDS} rounds of about ${ROUND_MS} ms per side (sequential: one authenticate and one \`SELECT 1\` in turn; in flight: the two sides back to back);`,
    'the ratio is the median of the per-round ratios (the machine is shared, so',
    'absolute figures drift; the ratio of back-to-back rounds is what is compared).',
    '',
    '| goal | authenticate vs SELECT 1 (medians) | ratio | target | |',
    '|---|---:|---:|---:|---|',
    ...rows,
    '',
    'What goal 1 rests on: concurrent `readChain` calls are coalesced into one statement per batch (up to 128 ids, at most',
    '4 batches on the wire per store), so 32 requests in flight cost the database one or two statements instead of 32; and',
    'a known token is read leanly (the probe of the reference rows), so each statement sends versions, not records.',
    '',
    'What goal 2 costs where it is missed: not the database any more. The lean probe a known token costs is about one',
    '`SELECT 1` (reference rows; a whole record read by primary key is well above it: twelve columns with a JSON document',
    'and four timestamps to send and parse; `authenticate` was 1.53x while it read them all recursively). The rest',
    'is client CPU around the statement: the store (batching, borrowing a connection under a deadline, turning the',
    'answer into fresh record copies) and the service (the deadline of its call, the chain checks, the principal). On this',
    'machine a bare `SELECT 1` costs about 100 µs of CPU in the client itself, and the store and service add roughly',
    'another 40 µs; taking that to the 1.2x line would mean reading without a deadline timer or without copying records,',
    'which the store contract (fresh copies per caller, every call bounded in time) does not allow.',
    '',
  );
  return out.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(await run());
}
