/**
 * Rounds that time an operation against a peer back to back, so that the
 * drift of a shared machine hits both sides: the ratio of each round is what
 * is compared, never the absolute figures. Not a benchmark itself.
 */
import { median, rate } from '../timing';

/** Alternating rounds per figure: each round times both sides back to back, so load drift hits both. */
export const ROUNDS = 9;
export const ROUND_MS = 250;

/** An operation to time; `i` is a running index (to cycle through ids or tokens). */
export type Op = (i: number) => Promise<unknown>;

/** Operations per second of `a` and of `b`, run one after the other in turn for `ms` each. */
export async function interleaved(a: Op, b: Op, ms: number): Promise<[number, number]> {
  let ta = 0;
  let tb = 0;
  let n = 0;
  while (ta + tb < 2 * ms) {
    const t0 = performance.now();
    await a(n);
    const t1 = performance.now();
    await b(n);
    tb += performance.now() - t1;
    ta += t1 - t0;
    n++;
  }
  return [(n * 1000) / ta, (n * 1000) / tb];
}

/** What {@link compare} measured: medians of both sides, the median per-round ratio and its spread. */
export interface Compared {
  /** Median operations per second of `op`, and of its peer. */
  readonly opRate: number;
  readonly peerRate: number;
  /** Sequential: time of `op` over time of its peer (lower is faster); in flight: `op`/s over peer/s (higher is faster). */
  readonly ratio: number;
  readonly low: number;
  readonly high: number;
}

/**
 * `op` against `peer` over {@link ROUNDS} rounds: one of each in turn when
 * `inFlight` is 1, else `inFlight` at a time, each side for {@link ROUND_MS}.
 */
export async function compare(op: Op, peer: Op, inFlight: number): Promise<Compared> {
  const ratios: number[] = [];
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const [x, y] =
      inFlight === 1 ? await interleaved(op, peer, ROUND_MS) : [await rate(op, inFlight, ROUND_MS), await rate(peer, inFlight, ROUND_MS)];
    a.push(x);
    b.push(y);
    ratios.push(inFlight === 1 ? y / x : x / y);
  }
  return { opRate: median(a), peerRate: median(b), ratio: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) };
}

/** `1.23x (per-round 1.10–1.31)`, the ratio in bold. */
export function shown(c: Compared): string {
  return `**${c.ratio.toFixed(2)}x** (per-round ${c.low.toFixed(2)}–${c.high.toFixed(2)})`;
}

/** The medians of both sides: µs per operation in turn, operations per second in flight. */
export function medians(c: Compared, inFlight: number): string {
  return inFlight === 1
    ? `${Math.round(1e6 / c.opRate)} µs vs ${Math.round(1e6 / c.peerRate)} µs`
    : `${Math.round(c.opRate).toLocaleString('en-US')}/s vs ${Math.round(c.peerRate).toLocaleString('en-US')}/s`;
}
