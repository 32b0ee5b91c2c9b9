/**
 * `auth.purge`: remove the records of sessions that ended long ago. The store
 * decides what goes (`TokenStore.purgeSessions`: ended sessions with their
 * subtrees, never a PAT, never an orphan); this checks the retention, turns it
 * into a cutoff on the service's clock, and calls the store in batches until
 * nothing is left, each batch under the store deadline.
 * @module
 */
import { UnavailableError, ValidationError, type IssueInput } from '../../errors';
import { checkOptions, isPlainObject } from '../../core/vocabulary';
import type { TokenStore } from '../../stores';
import type { PurgeOptions } from '../contract';

const DAY_MS = 86_400_000;
/** What `svc serve` and `auth.purge()` keep by default: three months of ended sessions, for audit. */
const DEFAULT_DAYS = 90;
const MAX_DAYS = 3650;
/** Sessions per store call: small enough for one statement under the store deadline. */
const BATCH = 1_000;
/** A store that never answers 0 must not keep a purge going forever (10 million records a run). */
const MAX_BATCHES = 10_000;

/** The retention in days: `<N>d` or a whole number, 1 to 3650. */
function checkRetention(options: unknown): number {
  if (!isPlainObject(options)) throw new ValidationError([{ path: '', message: 'purge takes an object { olderThan? }' }]);
  const issues: IssueInput[] = [];
  if (!checkOptions(options, ['olderThan'], '', issues)) throw new ValidationError(issues);
  const raw = options.olderThan ?? DEFAULT_DAYS;
  const m = typeof raw === 'string' ? /^([1-9][0-9]{0,3})d$/.exec(raw) : null;
  const days = typeof raw === 'number' ? raw : m === null ? Number.NaN : Number(m[1]);
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) {
    throw new ValidationError([{ path: 'olderThan', message: `expected <N>d or a whole number of days, N from 1 to ${MAX_DAYS}` }]);
  }
  return days;
}

/**
 * @internal `auth.purge` of one Auth instance.
 *
 * @example
 * ```ts
 * const purge = purger(store, nowMs, call);
 * await purge({ olderThan: '90d' }); // records removed
 * ```
 */
export function purger(
  store: TokenStore,
  nowMs: () => number,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
): (options?: PurgeOptions) => Promise<number> {
  return async (options = {}) => {
    const days = checkRetention(options);
    const purge = typeof store.purgeSessions === 'function' ? store.purgeSessions.bind(store) : undefined;
    if (purge === undefined) {
      throw new ValidationError([{ path: 'tokens', message: 'this token store cannot purge session records: it has no purgeSessions' }]);
    }
    const cutoff = new Date(nowMs() - days * DAY_MS);
    let total = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const removed: unknown = await call('token store', () => purge(cutoff, BATCH));
      if (typeof removed !== 'number' || !Number.isInteger(removed) || removed < 0) {
        throw new UnavailableError('token store purgeSessions returned something other than a count');
      }
      if (removed === 0) break;
      total += removed;
    }
    return total;
  };
}
