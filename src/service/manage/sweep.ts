/**
 * `auth.sweepExpiring`: warn once about PATs that expire soon. The store
 * claims the warnings (`TokenStore.markExpiring`: marked in the record, so
 * that another server, a second sweep or a restart does not warn again) and
 * this turns what it claimed into `token.expiring` events and the answer.
 * @module
 */
import { UnavailableError, ValidationError, type IssueInput } from '../../errors';
import { checkOptions, isPlainObject } from '../../core/vocabulary';
import { MAX_MARK_LIMIT, type TokenRecord, type TokenStore } from '../../stores';
import { parsePatExpiry } from '../../tokens';
import { SERVER_ACTOR, type EventDispatcher, type TokenExpiringEvent } from '../events';
import type { ExpiringToken, SweepOptions } from '../contract';
import { toInfo } from './token-info';

const DAY_SEC = 86_400;
const DEFAULT_LIMIT = 1_000;

/** Check the options of a sweep: the threshold in seconds (whole days) and the limit. */
function checkSweep(options: unknown): { withinSec: number; limit: number } {
  if (!isPlainObject(options)) throw new ValidationError([{ path: '', message: 'sweepExpiring takes an object { within, limit? }' }]);
  const issues: IssueInput[] = [];
  checkOptions(options, ['within', 'limit'], '', issues);
  let withinSec = 0;
  try {
    if (options.within === undefined) throw new ValidationError('missing');
    withinSec = parsePatExpiry(options.within as string | number);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push({ path: 'within', message: 'expected <N>d or a whole number of days, N from 1 to 365' });
  }
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_MARK_LIMIT) {
    issues.push({ path: 'limit', message: `expected a whole number from 1 to ${MAX_MARK_LIMIT}` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { withinSec, limit: limit as number };
}

function isClaimedPat(r: unknown, withinSec: number, nowMs: number): r is TokenRecord {
  if (typeof r !== 'object' || r === null) return false;
  const o = r as Partial<TokenRecord>;
  return (
    typeof o.id === 'string' &&
    typeof o.name === 'string' &&
    typeof o.ownerId === 'string' &&
    o.kind === 'pat' &&
    o.createdAt instanceof Date &&
    o.expiresAt instanceof Date &&
    // What the store claimed must be what was asked: due within the window, not yet expired.
    o.expiresAt.getTime() > nowMs &&
    o.expiresAt.getTime() <= nowMs + withinSec * 1000
  );
}

function expiringEvent(at: Date, record: TokenRecord, withinDays: number): TokenExpiringEvent {
  return Object.freeze({
    type: 'token.expiring',
    at,
    actor: SERVER_ACTOR,
    token: Object.freeze({
      id: record.id,
      name: record.name,
      kind: 'pat' as const,
      ownerId: record.ownerId,
      parentId: record.parentId,
      expiresAt: new Date(record.expiresAt.getTime()),
    }),
    withinDays,
  });
}

/**
 * @internal `auth.sweepExpiring` of one Auth instance (arguments as `issuers`).
 *
 * @example
 * ```ts
 * const sweep = sweeper(store, nowMs, call, events);
 * await sweep({ within: '7d' });
 * ```
 */
export function sweeper(
  store: TokenStore,
  nowMs: () => number,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
  events: EventDispatcher | null,
): (options: SweepOptions) => Promise<ExpiringToken[]> {
  return async (options) => {
    const { withinSec, limit } = checkSweep(options);
    const mark = typeof store.markExpiring === 'function' ? store.markExpiring.bind(store) : undefined;
    if (mark === undefined) {
      // No fallback: a warning the store cannot mark would be repeated by every sweep and every server.
      throw new ValidationError([{ path: 'tokens', message: 'this token store cannot keep expiry warnings: it has no markExpiring' }]);
    }
    const at = nowMs();
    const claimed: unknown = await call('token store', () => mark(withinSec, new Date(at), limit));
    if (!Array.isArray(claimed) || claimed.length > limit || !claimed.every((r) => isClaimedPat(r, withinSec, at))) {
      throw new UnavailableError('token store markExpiring returned something other than the PATs it claimed');
    }
    const withinDays = withinSec / DAY_SEC;
    return claimed.map((record) => {
      events?.emit(expiringEvent(new Date(at), record, withinDays));
      return Object.freeze({ ...toInfo(record, at), ownerId: record.ownerId, withinDays });
    });
  };
}
