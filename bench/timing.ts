/**
 * Timing helpers the in-process benchmarks share. Not a benchmark itself.
 */

/** The middle value of `xs` (the upper one of an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Operations per second of `op` run `inFlight` at a time for `ms`; `op` gets a running index. */
export async function rate(op: (i: number) => Promise<unknown>, inFlight: number, ms: number): Promise<number> {
  let done = 0;
  const start = performance.now();
  const until = start + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      for (let i = w; performance.now() < until; i += inFlight) {
        await op(i);
        done++;
      }
    }),
  );
  return (done * 1000) / (performance.now() - start);
}
