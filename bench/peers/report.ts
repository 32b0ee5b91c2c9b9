/**
 * The markdown section of the peer HTTP benchmark: the peer table (svc-auth
 * against each framework's own options), every variant's figures, and the
 * goals of issue 23 judged on them. Not a benchmark itself; see bench/peers/run.ts.
 */
import { PEER_HEADING } from '../report';
import { POOL_SIZE, TOKENS } from './credentials';
import type { Lone } from './server';
import { FRAMEWORKS, FRAMEWORK_LABEL, jwtMiddleware, kindsOf, peerOf, type Framework, type Kind } from './variants';

/** One variant's figures, one entry per round. */
export interface Figures {
  rps: number[];
  cpuUs: number[];
}

export interface RunInfo {
  date: string;
  machine: string;
  command: string;
  build: 'src' | 'dist';
  resolved: string;
  pinned: string;
  rounds: number;
  seconds: number;
  connections: number;
  skipped: string[];
  profiled: boolean;
}

type Results = Map<Framework, Map<Kind, Figures>>;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const x = (n: number): string => `${n.toFixed(2)}x`;
const us = (n: number): string => `${n.toFixed(1)} µs`;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Median over rounds of a's req/s over b's in the same round (each round times both, back to back). */
function rpsRatio(results: Results, f: Framework, a: Kind, b: Kind): number | undefined {
  const fa = results.get(f)?.get(a);
  const fb = results.get(f)?.get(b);
  if (fa === undefined || fb === undefined) return undefined;
  return median(fa.rps.map((r, i) => r / (fb.rps[i] as number)));
}

function cpuOf(results: Results, f: Framework, k: Kind): number | undefined {
  const fig = results.get(f)?.get(k);
  return fig === undefined ? undefined : median(fig.cpuUs);
}

const cell = (n: number | undefined): string => (n === undefined ? 'n/a' : x(n));

function peerTable(results: Results): string[] {
  const label: Record<Framework, string> = {
    node: `node:http (${jwtMiddleware('node', 'EdDSA')})`,
    express: `Express 5 (${jwtMiddleware('express', 'EdDSA')}; ${jwtMiddleware('express', 'HS256')} for HS256)`,
    fastify: `Fastify 5 (${jwtMiddleware('fastify', 'EdDSA')})`,
    hono: `Hono (${jwtMiddleware('hono', 'EdDSA')})`,
  };
  const rows = FRAMEWORKS.filter((f) => results.has(f)).map((f) => {
    const cached = kindsOf(f).some((k) => k.endsWith('-cached'))
      ? `${cell(rpsRatio(results, f, 'svc-memory', 'jwt-eddsa-cached'))} / ${cell(rpsRatio(results, f, 'svc-memory', 'jwt-hs256-cached'))}`
      : 'no cache';
    return `| ${label[f]} | ${cell(rpsRatio(results, f, 'svc-memory', 'jwt-eddsa'))} | ${cell(rpsRatio(results, f, 'svc-memory', 'jwt-hs256'))} | ${cached} | ${cell(rpsRatio(results, f, 'svc-postgres', 'jwt-eddsa'))} | ${cell(rpsRatio(results, f, 'svc-postgres', 'better-auth'))} |`;
  });
  return [
    '| framework | svc-auth (memory) vs JWT peer, EdDSA | vs JWT peer, HS256 | vs the cached JWT peer, EdDSA / HS256 | svc-auth (PostgreSQL) vs EdDSA peer | vs better-auth apiKey (PostgreSQL) |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}

function variantTable(results: Results): string[] {
  const rows: string[] = [];
  for (const f of FRAMEWORKS) {
    const figures = results.get(f);
    if (figures === undefined) continue;
    const bareCpu = cpuOf(results, f, 'bare');
    for (const k of kindsOf(f)) {
      const fig = figures.get(k);
      if (fig === undefined) continue;
      const cpu = median(fig.cpuUs);
      const vsBare = rpsRatio(results, f, k, 'bare');
      rows.push(
        `| ${FRAMEWORK_LABEL[f]} | ${peerOf(f, k)} | ${int(median(fig.rps))} | ${vsBare === undefined ? 'n/a' : x(vsBare)} | ${us(cpu)} | ${bareCpu === undefined ? 'n/a' : x(cpu / bareCpu)} |`,
      );
    }
  }
  return [
    '| framework | variant | req/s | req/s vs bare | server CPU per request | CPU vs bare |',
    '|---|---|---:|---:|---:|---:|',
    ...rows,
  ];
}

interface Goal {
  goal: string;
  where: string;
  measured: string;
  target: string;
  met: boolean | undefined;
}

/** A goal per framework: `kind`'s req/s over the uncached EdDSA JWT peer's, at least `target`. */
function vsEdDsa(results: Results, frameworks: readonly Framework[], kind: Kind, goal: string, target: number): Goal[] {
  return frameworks.map((f) => {
    const r = rpsRatio(results, f, kind, 'jwt-eddsa');
    const measured = r === undefined ? 'not measured' : x(r);
    return {
      goal,
      where: FRAMEWORK_LABEL[f],
      measured,
      target: `at least ${target.toFixed(2)}x`,
      met: r === undefined ? undefined : r >= target,
    };
  });
}

function goals(results: Results, lone: Lone | undefined): Goal[] {
  const out: Goal[] = [];
  const measured = FRAMEWORKS.filter((f) => results.has(f));
  for (const f of measured) {
    const parts: string[] = [];
    let met: boolean | undefined;
    const judge = (k: Kind, name: string, target: number): void => {
      const r = rpsRatio(results, f, 'svc-memory', k);
      if (r === undefined) return;
      parts.push(`${name} ${x(r)}`);
      met = (met ?? true) && r >= target;
    };
    judge('jwt-eddsa', 'EdDSA', 1.2);
    judge('jwt-hs256', 'HS256', 1.2);
    judge('jwt-eddsa-cached', 'cached EdDSA', 1);
    judge('jwt-hs256-cached', 'cached HS256', 1);
    if (results.get(f)?.has('svc-memory') !== true) met = undefined;
    out.push({
      goal: '2. memory store vs the JWT middleware (req/s)',
      where: FRAMEWORK_LABEL[f],
      measured: parts.length === 0 || met === undefined ? 'not measured' : parts.join(', '),
      target: 'at least 1.20x uncached, 1.00x cached',
      met,
    });
  }
  out.push(...vsEdDsa(results, measured, 'svc-postgres', '3a. PostgreSQL store vs the uncached EdDSA JWT peer (req/s)', 1));
  for (const f of measured) {
    const [pgCpu, memCpu, selCpu, bareCpu] = (['svc-postgres', 'svc-memory', 'select1', 'bare'] as const).map((k) => cpuOf(results, f, k));
    const ok = pgCpu !== undefined && memCpu !== undefined && selCpu !== undefined && bareCpu !== undefined;
    out.push({
      goal: '3b. client CPU the store adds per request (PostgreSQL minus memory) vs one `SELECT 1` (bare + `SELECT 1` minus bare), under load',
      where: FRAMEWORK_LABEL[f],
      measured: ok ? `${us(pgCpu - memCpu)} vs ${us(selCpu - bareCpu)}` : 'not measured',
      target: 'at most one `SELECT 1`',
      met: ok ? pgCpu - memCpu <= selCpu - bareCpu : undefined,
    });
  }
  out.push(
    {
      goal: '3b. the same, one request alone: `authenticate` + `authorize` on PostgreSQL minus on memory, vs one `SELECT 1`',
      where: 'in process',
      measured: lone === undefined ? 'not measured' : `${us(lone.cpuPostgresUs - lone.cpuMemoryUs)} vs ${us(lone.cpuSelectUs)}`,
      target: 'at most one `SELECT 1`',
      met: lone === undefined ? undefined : lone.cpuPostgresUs - lone.cpuMemoryUs <= lone.cpuSelectUs,
    },
    {
      goal: `3c. one request alone (a known token, one at a time): \`authenticate\` + \`authorize\` on PostgreSQL vs one \`SELECT 1\`, pool of ${POOL_SIZE}, ${TOKENS} hot tokens`,
      where: 'in process',
      measured:
        lone === undefined
          ? 'not measured'
          : `${us(lone.authUs)} vs ${us(lone.selectUs)}: ${x(lone.ratio)} (per-round ${lone.min.toFixed(2)}–${lone.max.toFixed(2)})`,
      target: 'at most 1.20x',
      met: lone === undefined ? undefined : lone.ratio <= 1.2,
    },
  );
  const bound = 'issue 32: a key-bound PAT with a DPoP proof per request (memory store) vs the uncached EdDSA JWT peer (req/s)';
  out.push(...vsEdDsa(results, measured, 'svc-bound', bound, 0.9));
  const guarded = cpuOf(results, 'node', 'svc-memory');
  const bare = cpuOf(results, 'node', 'bare');
  out.push({
    goal: '4. guarded node:http server CPU per request vs the bare server',
    where: FRAMEWORK_LABEL.node,
    measured: guarded === undefined || bare === undefined ? 'not measured' : `${us(guarded)} vs ${us(bare)}: ${x(guarded / bare)}`,
    target: 'at most 1.30x',
    met: guarded === undefined || bare === undefined ? undefined : guarded / bare <= 1.3,
  });
  return out;
}

/** What the guard and the store cost, in the words of the issue, from this run's figures. */
function costs(results: Results, lone: Lone | undefined): string[] {
  const lines: string[] = [];
  const guard: string[] = [];
  const store: string[] = [];
  const select: string[] = [];
  for (const f of FRAMEWORKS) {
    const [mem, pg, sel, bare, quiet] = (['svc-memory', 'svc-postgres', 'select1', 'bare', 'svc-no-expiry'] as const).map((k) =>
      cpuOf(results, f, k),
    );
    if (mem !== undefined && bare !== undefined) {
      // Without the expiry header: the guard's own share, apart from what one more response header costs the framework.
      const header = quiet === undefined ? '' : `, +${us(quiet - bare)} (${x(quiet / bare)}) with \`expirationHeader: false\``;
      guard.push(`${FRAMEWORK_LABEL[f]} +${us(mem - bare)} on ${us(bare)} (${x(mem / bare)})${header}`);
    }
    if (pg !== undefined && mem !== undefined) store.push(`${FRAMEWORK_LABEL[f]} ${us(pg - mem)}`);
    if (sel !== undefined && bare !== undefined) select.push(`${FRAMEWORK_LABEL[f]} ${us(sel - bare)}`);
  }
  if (guard.length > 0) lines.push(`- Server CPU svc-auth's guard (memory store) adds to a bare request: ${guard.join('; ')}.`);
  if (store.length > 0)
    lines.push(`- Client CPU the PostgreSQL store adds per request under load, over the memory store: ${store.join('; ')}.`);
  if (select.length > 0)
    lines.push(`- Client CPU one bare \`SELECT 1\` per request adds under load, through a pool of ${POOL_SIZE}: ${select.join('; ')}.`);
  if (lone !== undefined) {
    lines.push(
      `- One at a time, client CPU per call: \`authenticate\` + \`authorize\` ${us(lone.cpuPostgresUs)} on PostgreSQL, ${us(lone.cpuMemoryUs)} on memory; one \`SELECT 1\` ${us(lone.cpuSelectUs)}.`,
    );
  }
  return lines;
}

/** The "Peer HTTP" section of bench/RESULTS.md. */
export function report(results: Results, lone: Lone | undefined, info: RunInfo): string {
  const status = (g: Goal): string => (g.met === undefined ? 'not measured' : g.met ? 'met' : '**missed**');
  const built =
    info.build === 'dist'
      ? `the built package (\`--dist\`: \`svc-auth\` resolved to \`${info.resolved}\`, what \`npm pack\` ships)`
      : `the sources through tsx (\`svc-auth\` resolved to \`${info.resolved}\`; \`--dist\` measures the built package)`;
  return [
    PEER_HEADING,
    '',
    `Measured ${info.date} with \`${info.command}\` on ${info.machine}; svc-auth from ${built}.`,
    `Each variant is a server process of its own, ${info.pinned}; ${info.rounds} round${info.rounds === 1 ? '' : 's'} of ${info.seconds} s per variant,`,
    `the order of a framework's variants rotating from round to round; ${info.connections} connections, ${TOKENS} distinct hot credentials per variant`,
    'cycled by every connection; figures are medians over rounds, and each ratio the median of the ratios of the same round.',
    'Before it was timed, every variant answered 401 without a credential and with a tampered one, and 200 with each',
    "of its credentials (the bare references: 200); every timed answer was a 200. Server CPU is the server process's",
    'CPU time (all its threads) over the requests it answered. On a shared machine, trust the ratios, not absolute figures.',
    ...(info.profiled ? ['', "**This run profiled some servers (`--profile`): their figures carry the profiler's cost.**"] : []),
    ...(info.skipped.length > 0 ? ['', `Left out: ${info.skipped.join('; ')}.`] : []),
    '',
    'Every variant serves `GET /api/repos/acme/web/head` with the same JSON. The JWT peers check the signature, `exp`',
    'and the issuer, then that the `scope` claim holds `repo:read`; they read no record, so a revoked or changed token',
    'stays valid until it expires. svc-auth checks its token, reads its record (revocation and expiry hold on the next',
    'request), reads the roles and authorizes `repo:read` on `acme/web`. better-auth verifies the key against its',
    "table (hashed) with `{ repo: ['read'] }`, with the plugin's defaults except its rate limit (10 requests a day);",
    "by default every verification also writes the key's row (`lastRequest`, `updatedAt`).",
    '',
    "### svc-auth against each framework's own options (req/s of svc-auth over the peer's; above 1 is faster)",
    '',
    ...peerTable(results),
    '',
    '### Every variant',
    '',
    ...variantTable(results),
    '',
    '### Goals of issues 23 and 32',
    '',
    '| goal | where | measured | target | status |',
    '|---|---|---|---|---|',
    ...goals(results, lone).map((g) => `| ${g.goal} | ${g.where} | ${g.measured} | ${g.target} | ${status(g)} |`),
    '',
    ...costs(results, lone),
    '',
  ].join('\n');
}
