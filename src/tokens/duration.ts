/**
 * Token lifetimes (T3): the defaults and caps of each kind, and the parsers for
 * the duration texts users write (`--expires 90d`, `expiresIn: '2h'`).
 * @module
 */
import { ValidationError } from '../errors';
import type { TokenKind } from './types';

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Default and maximum lifetime of one kind of token, in seconds.
 * @example
 * ```ts
 * const { defaultSec, maxSec }: Lifetime = LIFETIMES.component; // 3600, 86400
 * ```
 */
export interface Lifetime {
  readonly defaultSec: number;
  readonly maxSec: number;
}

/**
 * Default and maximum lifetime of each kind of token, in seconds (T3): PATs 30 days
 * (at most 365), sessions 12 hours (at most 30 days), component tokens 1 hour (at most 1 day).
 *
 * @example
 * ```ts
 * import { LIFETIMES } from 'svc-auth';
 * LIFETIMES.session.maxSec; // 2592000 (30 days)
 * ```
 */
export const LIFETIMES: Readonly<Record<TokenKind, Lifetime>> = Object.freeze({
  pat: Object.freeze({ defaultSec: 30 * DAY, maxSec: 365 * DAY }),
  session: Object.freeze({ defaultSec: 12 * HOUR, maxSec: 30 * DAY }),
  component: Object.freeze({ defaultSec: 1 * HOUR, maxSec: 1 * DAY }),
});

const UNIT_SEC: Readonly<Record<string, number>> = { d: DAY, h: HOUR, m: MINUTE };

// No leading zeros, no signs, no spaces, no fractions: one spelling per value, and
// at most 7 digits so the product stays a safe integer long before the cap check.
const PAT_DAYS = /^([1-9][0-9]{0,6})d$/;
const SHORT = /^([1-9][0-9]{0,6})([dhm])$/;

/**
 * Parse a PAT's `expiresIn` (`--expires`): `'<N>d'` or a number of days, N an integer
 * from 1 to 365; `undefined` means the default of 30 days. Returns seconds.
 *
 * @throws ValidationError (issue path `expiresIn`) for anything else, e.g. `'0d'`, `'366d'`, `'12h'`, `'30'`, `1.5`.
 * @example
 * ```ts
 * import { parsePatExpiry } from 'svc-auth';
 * parsePatExpiry('90d');     // 7776000
 * parsePatExpiry(7);         // 604800
 * parsePatExpiry(undefined); // 2592000 (30 days)
 * ```
 */
export function parsePatExpiry(input: string | number | undefined): number {
  if (input === undefined) return LIFETIMES.pat.defaultSec;
  let days: number | undefined;
  if (typeof input === 'number') {
    if (Number.isSafeInteger(input)) days = input;
  } else if (typeof input === 'string') {
    const m = PAT_DAYS.exec(input);
    if (m?.[1] !== undefined) days = Number(m[1]);
  }
  if (days === undefined || days < 1 || days * DAY > LIFETIMES.pat.maxSec) {
    throw new ValidationError([{ path: 'expiresIn', message: 'expected <N>d or a whole number of days, N from 1 to 365' }]);
  }
  return days * DAY;
}

/**
 * Parse a short lifetime such as a session's or a component token's `expiresIn`:
 * `'<N>d'`, `'<N>h'` or `'<N>m'` (N a positive integer), at most `opts.maxSec`;
 * `undefined` gives `opts.defaultSec`. Returns seconds.
 *
 * @throws ValidationError (issue path `expiresIn`) for any other text or a value above the cap;
 *   ValidationError (path `opts`) when the options themselves are not positive whole seconds.
 * @example
 * ```ts
 * import { LIFETIMES, parseShortDuration } from 'svc-auth';
 * parseShortDuration('30m', LIFETIMES.component);  // 1800
 * parseShortDuration(undefined, LIFETIMES.session); // 43200 (12 hours)
 * parseShortDuration('31d', LIFETIMES.session);     // throws ValidationError
 * ```
 */
export function parseShortDuration(input: string | undefined, opts: { defaultSec: number; maxSec: number }): number {
  const { defaultSec, maxSec } = readOpts(opts);
  if (input === undefined) return defaultSec;
  const m = typeof input === 'string' ? SHORT.exec(input) : null;
  const unit = m?.[2] === undefined ? undefined : UNIT_SEC[m[2]];
  const sec = m?.[1] === undefined || unit === undefined ? undefined : Number(m[1]) * unit;
  if (sec === undefined) {
    throw new ValidationError([{ path: 'expiresIn', message: 'expected <N>d, <N>h or <N>m with N a positive whole number' }]);
  }
  if (sec > maxSec) {
    throw new ValidationError([{ path: 'expiresIn', message: `at most ${describe(maxSec)}` }]);
  }
  return sec;
}

function readOpts(opts: unknown): { defaultSec: number; maxSec: number } {
  const o = (typeof opts === 'object' && opts !== null ? opts : {}) as Record<string, unknown>;
  const { defaultSec, maxSec } = o;
  if (!isPositiveInt(defaultSec) || !isPositiveInt(maxSec) || defaultSec > maxSec) {
    throw new ValidationError([{ path: 'opts', message: 'defaultSec and maxSec must be positive whole seconds, defaultSec <= maxSec' }]);
  }
  return { defaultSec, maxSec };
}

function isPositiveInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

function describe(sec: number): string {
  if (sec % DAY === 0) return `${sec / DAY}d`;
  if (sec % HOUR === 0) return `${sec / HOUR}h`;
  if (sec % MINUTE === 0) return `${sec / MINUTE}m`;
  return `${sec}s`;
}
