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
