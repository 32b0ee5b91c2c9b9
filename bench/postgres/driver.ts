/**
 * The `postgres` driver (porsager) beside `pg`, in the same run: its
 * `SELECT 1` and its run of the store's lean probe (prepared), one at a time
 * and {@link IN_FLIGHT} in flight, each against `pg`'s `SELECT 1` in the same
 * rounds. Reference rows only: the store is written for `pg`'s pool. Not a
 * benchmark itself; see goals.ts.
 */
import postgres from 'postgres';
import { rate } from '../timing';
import { compare, medians, type Op, shown } from './rounds';
import { IN_FLIGHT, POOL_SIZE } from './setup';

/** Markdown rows: `postgres`'s `SELECT 1` and lean probe of `ids` against `pgSelect`. */
export async function driverRows(url: string, pgSelect: Op, ids: readonly string[], leanText: string): Promise<string[]> {
  const sql = postgres(url, { max: POOL_SIZE, onnotice: () => {} });
  try {
    // The driver's own form of a statement without parameters (prepared, its default).
    const select: Op = () => sql`SELECT 1`;
    const lean: Op = (i) => sql.unsafe(leanText, [ids[i % ids.length] as string], { prepare: true });
    // Every connection open and both statements prepared on each before anything is timed.
    await rate(select, IN_FLIGHT, 200);
    await rate(lean, IN_FLIGHT, 200);
    const rows: string[] = [];
    for (const inFlight of [1, IN_FLIGHT]) {
      const mode = inFlight === 1 ? 'one at a time (time ratio)' : `${IN_FLIGHT} in flight (rate ratio)`;
      for (const [label, op] of [
        ['`SELECT 1`', select],
        ["the store's lean probe (prepared)", lean],
      ] as const) {
        const c = await compare(op, pgSelect, inFlight);
        rows.push(
          `| reference: \`postgres\` driver, ${label}, ${mode}, vs \`pg\` \`SELECT 1\` | ${medians(c, inFlight)} | ${shown(c)} | | |`,
        );
      }
    }
    return rows;
  } finally {
    await sql.end();
  }
}
