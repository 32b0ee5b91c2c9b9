/**
 * The options of {@link PostgresTokenStore}, checked when the store is built
 * (misuse fails at construction, not on the first request), and the store's
 * limits and deadlines.
 * @module
 */
import type { Pool } from 'pg';
import { ValidationError, type IssueInput } from '../../../errors';
import { checkOptions, isPlainObject } from '../../../core/vocabulary';
import { parseTableName, type TableName } from './sql';

/**
 * Options of {@link PostgresTokenStore}. Checked when the store is built.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import type { PostgresTokenStoreOptions } from 'svc-auth/postgres';
 * const options: PostgresTokenStoreOptions = { pool: new pg.Pool(), table: 'auth.tokens', statementTimeoutMs: 2000 };
 * ```
 */
export interface PostgresTokenStoreOptions {
  /** A `pg.Pool`. The store only borrows connections from it; it never ends it. */
  pool: Pool;
  /** Table name, `name` or `schema.name`, each part `^[a-z_][a-z0-9_]{0,62}$`. Default `svc_auth_tokens`. The schema must exist. */
  table?: string;
  /**
   * Longest time one store call may take, in milliseconds (connecting, waiting
   * for locks, running): past it the call rejects with `UnavailableError`. Also
   * set as the server's `statement_timeout` inside the store's transactions.
   * Default 5 000; an integer from 1 to 2 147 483 647.
   */
  statementTimeoutMs?: number;
  /**
   * Run the reads (`readChain`, `listByOwner`) as named prepared statements,
   * planned once per connection: several times faster for the recursive read.
   * Default `true`; set `false` behind a pooler that cannot keep prepared
   * statements (PgBouncer in transaction mode before 1.21).
   */
  prepare?: boolean;
  /**
   * How many records the store remembers, each with its row version, so that
   * reading a known token's chain again sends a lean statement (a primary-key
   * probe returning each row's version and `revoked_at`) instead of the
   * recursive read of every column. A row that changed in any way (revoked,
   * last-used time written, edited by hand) is read in full again. Default
   * 10 000; `0` turns it off. An integer from 0 to 1 000 000.
   */
  recordCacheSize?: number;
}

const DEFAULT_TABLE = 'svc_auth_tokens';
const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 2_147_483_647;
/** Creating an index on a large table legitimately takes longer than a lookup. */
export const MIN_MIGRATE_TIMEOUT_MS = 60_000;
/** Ids longer than this are never stored (see record-codec.ts), so they are not looked up either. */
export const MAX_ID_LENGTH = 512;
/** Each revoke pass that finds new rows is progress; this many means something is badly wrong. */
export const MAX_REVOKE_PASSES = 50;
/** Most ids in one batched chain read; more wait for the next statement. */
export const MAX_BATCH_IDS = 128;
/**
 * Batched chain reads on the wire at once. Few, so that under load calls
 * gather into large batches instead of spreading over the pool one by one.
 */
export const MAX_BATCHES_IN_FLIGHT = 4;
/**
 * Fewest ids per statement when a gathered batch is split over free slots
 * (32 calls in flight: two statements of 16; 16 or fewer: one). Smaller parts
 * cost the database more statements than the overlap saves.
 */
export const MIN_SPLIT_IDS = 16;
const DEFAULT_RECORD_CACHE_SIZE = 10_000;
const MAX_RECORD_CACHE_SIZE = 1_000_000;
const OPTION_KEYS = new Set(['pool', 'table', 'statementTimeoutMs', 'prepare', 'recordCacheSize']);

/** @internal the checked options of a store. */
export interface StoreOptions {
  readonly pool: Pool;
  readonly name: TableName;
  readonly timeoutMs: number;
  readonly prepare: boolean;
  readonly recordCacheSize: number;
}

/** @internal check `options` (throws `ValidationError`) and fill in the defaults. */
export function readOptions(options: PostgresTokenStoreOptions): StoreOptions {
  if (!isPlainObject(options)) {
    throw new ValidationError([{ path: '', message: 'expected an options object { pool, table?, statementTimeoutMs? }' }]);
  }
  const issues: IssueInput[] = [];
  if (!checkOptions(options, OPTION_KEYS, '', issues)) throw new ValidationError(issues);
  const pool: unknown = options.pool;
  if (typeof pool !== 'object' || pool === null || typeof (pool as { connect?: unknown }).connect !== 'function') {
    throw new ValidationError([{ path: 'pool', message: 'expected a pg.Pool' }]);
  }
  const timeout = options.statementTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_MS) {
    throw new ValidationError([{ path: 'statementTimeoutMs', message: `expected an integer from 1 to ${MAX_TIMEOUT_MS}` }]);
  }
  const prepare = options.prepare ?? true;
  if (typeof prepare !== 'boolean') throw new ValidationError([{ path: 'prepare', message: 'expected a boolean' }]);
  const recordCacheSize = options.recordCacheSize ?? DEFAULT_RECORD_CACHE_SIZE;
  if (!Number.isInteger(recordCacheSize) || recordCacheSize < 0 || recordCacheSize > MAX_RECORD_CACHE_SIZE) {
    throw new ValidationError([{ path: 'recordCacheSize', message: `expected an integer from 0 to ${MAX_RECORD_CACHE_SIZE}` }]);
  }
  const name = parseTableName(options.table ?? DEFAULT_TABLE);
  return { pool: pool as Pool, name, timeoutMs: timeout, prepare, recordCacheSize };
}
