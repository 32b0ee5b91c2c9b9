/**
 * A scripted source for the PostgreSQL store's chain batcher (no database): each
 * statement the batcher sends is held until the test answers or fails it.
 */
import type { QueryResultRow } from 'pg';
import { UnavailableError } from '../../src/errors';
import type { ChainSource } from '../../src/stores/postgres/tokens/batch';
import { groupByRoot } from '../../src/stores/postgres/tokens/rows';
import type { ServiceAccountRecord, TokenRecord } from '../../src/stores';

/** One statement the batcher sent, held until the test answers or fails it. */
export interface Sent {
  ids: readonly string[];
  accounts: readonly string[];
  answer: (rows: QueryResultRow[]) => void;
  fail: (err: unknown) => void;
}

/** A source whose statements are answered by the test, one by one. */
export function scripted(): { source: ChainSource<QueryResultRow[]>; sent: Sent[] } {
  const sent: Sent[] = [];
  const source: ChainSource<QueryResultRow[]> = {
    fetch: (ids, _ms, accounts) =>
      new Promise<QueryResultRow[]>((resolve, reject) => {
        sent.push({ ids, accounts, answer: resolve, fail: reject });
      }).then((rows) => ({
        chains: groupByRoot(rows.filter((r) => r.root !== undefined)),
        accounts: new Map(rows.filter((r) => r.account !== undefined).map((r) => [String(r.account), r])),
      })),
    decode: (rows) =>
      rows.map((r) => {
        if (r.bad === true) throw new UnavailableError('token store unavailable: a stored record is malformed');
        return { id: String(r.id), parentId: r.parent ?? null } as unknown as TokenRecord;
      }),
    decodeAccount: (found) => {
      const r = found as QueryResultRow;
      if (r.bad === true) throw new UnavailableError('token store unavailable: a stored service account is malformed');
      return { org: String(r.account), name: 'bot' } as unknown as ServiceAccountRecord;
    },
  };
  return { source, sent };
}

/** Rows of chains: each id's chain is itself then `<id>-parent`. */
export function rowsFor(ids: readonly string[]): QueryResultRow[] {
  return ids.flatMap((id) => [
    { root: id, id, parent: `${id}-parent` },
    { root: id, id: `${id}-parent` },
  ]);
}

// minSplit above the tests' batch sizes: a batch is one statement unless a test says otherwise.
export const limits = { maxIds: 128, maxInFlight: 2, minSplit: 64, timeoutMs: 5_000 };
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
export const ids = (chain: TokenRecord[] | null): string[] | null => chain?.map((r) => r.id) ?? null;
