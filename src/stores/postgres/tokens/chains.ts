/**
 * @internal How {@link PostgresTokenStore} reads chains: the lean read of
 * chains it knows (see `known.ts`), the full recursive read of the
 * rest, and the decoding of both into records.
 * @module
 */
import type { PoolClient, QueryResultRow } from 'pg';
import type { Entry } from '../../record-codec';
import { KnownRecords, freshOf } from './known';
import { leanRows, type ReadQuery } from './lean-rows';
import { groupByRoot, recordOf, rowToEntry } from './rows';
import type { StoreSql } from './sql';
import type { TokenRecord } from '../../types';
import { AccountViews, accountParams, accountsOf, ridersParam } from './side-tables';
import { ChainBatcher, type Fetched } from './batch';
import { MAX_BATCH_IDS, MAX_BATCHES_IN_FLIGHT, MIN_SPLIT_IDS } from './options';

export type { ReadQuery } from './lean-rows';

/** Distinct account texts kept decoded for the request path (accounts are few beside tokens). */
const MAX_ACCOUNT_VIEWS = 1000;

/**
 * @internal A chain as one read found it: its entries (from the full read, or
 * remembered ones the lean read showed unchanged), or the error that one of its
 * rows is malformed (which fails only the callers of that id).
 */
export type Found = { readonly entries: readonly Entry[]; views?: readonly TokenRecord[] } | { readonly error: unknown };

/**
 * @internal The chain reads of one store.
 *
 * @example
 * ```ts
 * const reader = new ChainReader(sql, (kind, text, values) => ({ text, values }), 10_000);
 * const found = await reader.fetch(client, ['tok_1']);
 * ```
 */
export class ChainReader {
  private readonly known: KnownRecords | null;
  /** The service accounts' records, decoded once per distinct text for the request path. */
  readonly accounts: AccountViews;

  constructor(
    private readonly sql: StoreSql,
    private readonly query: (kind: string, text: string, values: unknown[]) => ReadQuery,
    recordCacheSize: number,
    /** Told the governance version each read returned (its own column of every row). */
    private readonly onVersion: (version: unknown) => void = () => {},
  ) {
    this.known = recordCacheSize > 0 ? new KnownRecords(recordCacheSize) : null;
    this.accounts = new AccountViews(Math.min(recordCacheSize, MAX_ACCOUNT_VIEWS));
  }

  /**
   * The chains of `ids`: known ones by the lean read, the rest (and any that changed) in full.
   * The accounts of `accounts` (keys of accounts.ts) ride on the first of those statements, so
   * reading them costs no statement of its own (one is sent for them alone when no chain is asked).
   */
  async fetch(client: PoolClient, ids: readonly string[], accounts: readonly string[] = []): Promise<Fetched<Found>> {
    const out = new Map<string, Found>();
    const riders = { keys: accounts, found: new Map<string, unknown>() };
    const rest = this.known === null ? ids : await this.readKnown(this.known, client, ids, out, riders);
    if (rest.length > 0 || riders.keys.length > 0) {
      // One id alone takes the single-id statement: nothing to encode or unpack.
      const query =
        riders.keys.length > 0
          ? this.query('chains_accounts', this.sql.readChainsAccounts, [JSON.stringify(rest), ridersParam(riders.keys)])
          : rest.length === 1
            ? this.query('chain', this.sql.readChain, [rest[0]])
            : this.query('chains', this.sql.readChains, [JSON.stringify(rest)]);
      const { rows } = await client.query(query);
      // Accounts' rows (root null) sort last: a chain row, if any, comes first.
      if (rows.length > 0 && rows[0]?.root !== null) this.onVersion(rows[0]?.gov_version);
      const chains = riders.keys.length > 0 ? rows.filter((row) => row.root !== null) : rows;
      if (riders.keys.length > 0) riders.found = accountsOf(rows.map((row) => row.account));
      for (const [root, chain] of groupByRoot(chains)) out.set(root, this.entriesOf(chain));
    }
    return { chains: out, accounts: riders.found };
  }

  /**
   * Answer the ids whose chain is known and unchanged into `out`; returns the ids still to read in
   * full. When it sends its statement, the accounts of `riders` ride on it (and are found there).
   */
  private async readKnown(
    known: KnownRecords,
    client: PoolClient,
    ids: readonly string[],
    out: Map<string, Found>,
    riders: { keys: readonly string[]; found: Map<string, unknown> },
  ): Promise<string[]> {
    const rest: string[] = [];
    const chains = new Map<string, string[]>();
    const wanted = new Set<string>();
    for (const id of ids) {
      const chain = known.chainOf(id);
      if (chain === undefined) rest.push(id);
      else {
        chains.set(id, chain);
        for (const link of chain) wanted.add(link);
      }
    }
    if (chains.size === 0) return rest;
    // A lone service account's request (one record, one account) takes the single-row form.
    const lone = riders.keys.length === 1 && wanted.size === 1 ? accountParams(riders.keys[0] as string) : null;
    const query =
      lone !== null
        ? this.query('version_account', this.sql.readVersionAccount, [...wanted, ...lone])
        : riders.keys.length > 0
          ? this.query('versions_accounts', this.sql.readVersionsAccounts, [JSON.stringify([...wanted]), ridersParam(riders.keys)])
          : wanted.size === 1
            ? this.query('version', this.sql.readVersion, [...wanted])
            : this.query('versions', this.sql.readVersions, [JSON.stringify([...wanted])]);
    // Three columns read once each: as arrays, pg builds no object per row. Without riders, or with
    // one (its record is text), the statement goes the short way (lean-rows.ts; column 2 is
    // `revoked_at`, the one timestamp); several riders' column is jsonb, which pg parses.
    query.rowMode = 'array';
    const rows =
      riders.keys.length > 0 && lone === null
        ? ((await client.query(query)) as unknown as { rows: (readonly unknown[])[] }).rows
        : await leanRows(client, query, [2]);
    // An account's row has no id (freshOf passes it by); the first row with one carries the version.
    const versioned = riders.keys.length > 0 ? rows.find((row) => row[0] !== null) : rows[0];
    if (versioned !== undefined) this.onVersion(versioned[3]);
    if (lone !== null) {
      const record = rows[0]?.[4];
      if (record !== null && record !== undefined) riders.found.set(riders.keys[0] as string, record);
      riders.keys = [];
    } else if (riders.keys.length > 0) {
      riders.found = accountsOf(rows.map((row) => row[4]));
      riders.keys = [];
    }
    const fresh = freshOf(rows);
    for (const [id, chain] of chains) {
      const hit = known.unchangedWithViews(chain, fresh);
      if (hit === undefined) rest.push(id);
      else out.set(id, hit);
    }
    return rest;
  }

  /**
   * One found chain as records, called once per caller: fresh copies for each,
   * or for `shared` (the service's request path) frozen views made once, kept
   * with the remembered record (see known.ts) or with this answer.
   */
  decode(found: Found, shared: boolean): TokenRecord[] {
    if ('error' in found) throw found.error;
    if (!shared) return found.entries.map(recordOf);
    found.views ??= found.entries.map(recordOf);
    return found.views.slice();
  }

  /** The rows of one chain of the full read as checked entries, each remembered with its version; once per id. */
  private entriesOf(rows: readonly QueryResultRow[]): Found {
    const entries: Entry[] = [];
    try {
      for (const row of rows) {
        const entry = rowToEntry(row);
        const version: unknown = row.row_version;
        if (this.known !== null && typeof version === 'string') this.known.remember(entry, version);
        entries.push(entry);
      }
    } catch (err) {
      return { error: err };
    }
    return { entries };
  }
}

/**
 * @internal A store's batcher over its reader: chains and accounts read in statements sent by
 * `run` (a borrowed connection under a deadline of `ms`), each call within `timeoutMs`.
 *
 * @example
 * ```ts
 * const batcher = chainBatcher(reader, (ms, work) => borrow(pool, errors, ms, work), 5000);
 * ```
 */
export function chainBatcher(
  reader: ChainReader,
  run: <T>(ms: number, work: (client: PoolClient) => Promise<T>) => Promise<T>,
  timeoutMs: number,
): ChainBatcher<Found> {
  return new ChainBatcher<Found>(
    {
      fetch: (ids, ms, accounts) => run(ms, (client) => reader.fetch(client, ids, accounts)),
      decode: (found, shared) => reader.decode(found, shared),
      decodeAccount: (found, shared) => reader.accounts.decode(found, shared),
    },
    { maxIds: MAX_BATCH_IDS, maxInFlight: MAX_BATCHES_IN_FLIGHT, minSplit: MIN_SPLIT_IDS, timeoutMs },
  );
}
