/**
 * @internal What the PostgreSQL store remembers of the records it has read, so
 * that a hot `readChain` sends a lean statement instead of the recursive read of
 * every column.
 *
 * A record never changes except for `revokedAt` and `lastUsedAt`, and a chain's
 * parent links never change at all. Still, the table is the truth, and someone
 * may edit a row by hand: so the store keeps each record with its row version
 * (`xmin`, which every UPDATE of the row renews) and trusts the remembered
 * columns only while a fresh read shows the same version. The lean read also
 * returns `revoked_at` itself, so a revocation never rests on the version alone.
 * Any doubt (an unknown id, another version, a missing row, a value that does
 * not parse) sends that chain through the full read, as if nothing were known.
 *
 * Every read is still a statement sent after the call started (T5): what is
 * remembered only saves sending columns that have not changed.
 * @module
 */
import type { QueryResultRow } from 'pg';
import type { Entry } from '../../record-codec';
import { recordOf } from './rows';
import type { TokenRecord } from '../../types';
import { MAX_CHAIN_DEPTH } from './sql';

/** @internal one row of the lean read, as the store checks it. */
export interface Fresh {
  readonly version: string;
  readonly revokedAt: number | null;
}

interface Known {
  readonly version: string;
  readonly entry: Entry;
  /**
   * The frozen view of `entry` for the service's request path, made on first
   * use: a remembered entry never changes (a changed row is a new Known).
   */
  view: TokenRecord | undefined;
}

// A chain read follows at most MAX_CHAIN_DEPTH parents: a remembered chain longer
// than that (or a loop of hand-edited parent links) goes through the full read.
const MAX_CHAIN_RECORDS = MAX_CHAIN_DEPTH + 1;

/**
 * @internal A bounded memory of records by id. When full, the record remembered
 * first is forgotten first: a flood of distinct tokens costs full reads, never memory.
 *
 * @example
 * ```ts
 * const known = new KnownRecords(10_000);
 * known.remember(entry, '7311');
 * const ids = known.chainOf(entry.id); // [entry.id, ...ancestors] or undefined
 * ```
 */
export class KnownRecords {
  readonly #byId = new Map<string, Known>();

  constructor(readonly max: number) {}

  /** How many records are remembered (never more than `max`). */
  get size(): number {
    return this.#byId.size;
  }

  /** Remember a record read in full, with the version it was read at. */
  remember(entry: Entry, version: string): void {
    if (this.max < 1) return;
    if (!this.#byId.has(entry.id) && this.#byId.size >= this.max) {
      const oldest = this.#byId.keys().next();
      if (oldest.done !== true) this.#byId.delete(oldest.value);
    }
    this.#byId.set(entry.id, { version, entry, view: undefined });
  }

  /** The ids of `id`'s chain, nearest first, when every record of it is remembered. */
  chainOf(id: string): string[] | undefined {
    const ids: string[] = [];
    let at: string | null = id;
    while (at !== null) {
      const known = this.#byId.get(at);
      if (known === undefined || ids.length >= MAX_CHAIN_RECORDS) return undefined;
      ids.push(at);
      at = known.entry.parentId;
    }
    return ids;
  }

  /**
   * The remembered entries of `ids` when the lean read shows each of them
   * unchanged: same version and same revocation. `undefined` otherwise.
   */
  unchanged(ids: readonly string[], fresh: ReadonlyMap<string, Fresh>): Entry[] | undefined {
    return this.#unchanged(ids, fresh)?.map((k) => k.entry);
  }

  /**
   * {@link KnownRecords.unchanged}, with each entry's shared frozen view (for
   * the service's request path; see stores/views.ts).
   */
  unchangedWithViews(ids: readonly string[], fresh: ReadonlyMap<string, Fresh>): { entries: Entry[]; views: TokenRecord[] } | undefined {
    const known = this.#unchanged(ids, fresh);
    if (known === undefined) return undefined;
    const entries: Entry[] = [];
    const views: TokenRecord[] = [];
    for (const k of known) {
      entries.push(k.entry);
      views.push((k.view ??= recordOf(k.entry)));
    }
    return { entries, views };
  }

  #unchanged(ids: readonly string[], fresh: ReadonlyMap<string, Fresh>): Known[] | undefined {
    const out: Known[] = [];
    for (const id of ids) {
      const known = this.#byId.get(id);
      const now = fresh.get(id);
      if (known === undefined || now === undefined) return undefined;
      if (now.version !== known.version || now.revokedAt !== known.entry.revokedAt) return undefined;
      out.push(known);
    }
    return out;
  }
}

/**
 * @internal The rows of the lean read by id: objects (`id`, `row_version`,
 * `revoked_at`) or, as the store reads them, arrays in that column order (any
 * further column, such as the governance version, is not looked at here). A row
 * whose values do not parse is left out, which sends its chains through the
 * full read (that then fails closed).
 */
export function freshOf(rows: readonly (QueryResultRow | readonly unknown[])[]): Map<string, Fresh> {
  const out = new Map<string, Fresh>();
  for (const row of rows) {
    let id: unknown, version: unknown, revoked: unknown;
    if (Array.isArray(row)) [id, version, revoked] = row as readonly unknown[];
    else ({ id, row_version: version, revoked_at: revoked } = row as QueryResultRow);
    if (typeof id !== 'string' || typeof version !== 'string') continue;
    const revokedAt = timeOrNull(revoked);
    if (revokedAt !== undefined) out.set(id, { version, revokedAt });
  }
  return out;
}

/** A timestamp as epoch ms, `null` for SQL NULL, `undefined` when it is neither. */
function timeOrNull(value: unknown): number | null | undefined {
  if (value === null) return null;
  // Pools with custom type parsers may hand timestamps back as text.
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? ms : undefined;
}
