/**
 * Markdown helpers shared by the benchmarks (not a benchmark itself: run.ts
 * only loads `*.bench.ts`).
 */

/** ns as `123 ns`, or `12.3 µs` from 10 µs up. */
export const formatNs = (ns: number): string => (ns >= 10_000 ? `${(ns / 1000).toFixed(1)} µs` : `${Math.round(ns)} ns`);

/** One column pair of a ratio table: times per engine and the engine they are divided by. */
export interface RatioColumn {
  title: string;
  times: Map<string, number>;
  base: string;
}

/**
 * A markdown table with, per column, each engine's time and its ratio to the
 * column's base engine (`× <baseLabel>`); `n/a` where an engine has no figure.
 */
export function ratioTable(rows: string[], cols: RatioColumn[], baseLabel: string): string {
  const head = `| engine | ${cols.map((c) => `${c.title} | × ${baseLabel}`).join(' | ')} |`;
  const sep = `|---|${cols.map(() => '---:|---:').join('|')}|`;
  const body = rows.map((r) => {
    const cells = cols.map((c) => {
      const t = c.times.get(r);
      const base = c.times.get(c.base);
      return t === undefined || base === undefined ? 'n/a | n/a' : `${formatNs(t)} | ${(t / base).toFixed(2)}`;
    });
    return `| ${r} | ${cells.join(' | ')} |`;
  });
  return [head, sep, ...body].join('\n');
}

/** One contender of {@link interleaved}: `fn` does `ops` operations per call (sync, or a promise to await). */
export interface Contender {
  name: string;
  fn: () => unknown;
  ops?: number;
}

/** `true` under `--quick` (shorter rounds). */
export const QUICK = process.argv.includes('--quick');

/**
 * ns per operation of each contender, taking turns: in every round each one
 * runs for `ms` milliseconds, the order rotating from round to round, so that
 * a noisy neighbour slows every contender alike. The figure is each one's best
 * round (noise only ever adds time); ratios between figures of one call are
 * ratios measured in one run.
 */
export async function interleaved(list: Contender[], rounds = QUICK ? 5 : 21, ms = QUICK ? 60 : 120): Promise<Map<string, number>> {
  const best = new Map<string, number>(list.map((c) => [c.name, Number.POSITIVE_INFINITY]));
  const once = async (c: Contender, budgetNs: number): Promise<number> => {
    let calls = 0;
    let batch = 16;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < budgetNs) {
      for (let k = 0; k < batch; k++) {
        const r = c.fn();
        if (r instanceof Promise) await r;
      }
      calls += batch;
      if (batch < 4096) batch *= 2;
      elapsed = Number(process.hrtime.bigint() - start);
    }
    return elapsed / (calls * (c.ops ?? 1));
  };
  for (const c of list) await once(c, 50e6); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < list.length; k++) {
      const c = list[(k + r) % list.length] as Contender;
      best.set(c.name, Math.min(best.get(c.name) as number, await once(c, ms * 1e6)));
    }
  }
  return best;
}

/** The heading of the section `npm run bench:http` (bench/peers/run.ts) writes into RESULTS.md. */
export const PEER_HEADING = "## Peer HTTP: svc-auth beside each framework's own auth (issue 23)";
