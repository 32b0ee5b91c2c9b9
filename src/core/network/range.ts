/**
 * Address ranges in CIDR notation (`203.0.113.0/24`, `2001:db8::/32`, or a
 * bare address for one host): reading and checking a list once, when it is
 * given, and matching an address against it on each request.
 *
 * Families stay apart: an IPv4 range matches IPv4 addresses, an IPv6 range
 * IPv6 ones. An IPv4 client that arrives as an IPv4-mapped IPv6 address is an
 * IPv4 address here (see address.ts), so it matches the IPv4 ranges. A range
 * with bits set after its prefix (`10.1.2.3/8`) is refused, not masked: it
 * is a typo for `10.1.2.3/32` as often as for `10.0.0.0/8`.
 * @module
 */
import { ValidationError, type IssueInput } from '../../errors';
import { formatAddress, parseAddress, type IpAddress } from './address';

/**
 * A range: the network address and how many leading bits of it count.
 *
 * @example
 * ```ts
 * const r: IpRange = { family: 4, bytes: new Uint8Array([10, 0, 0, 0]), prefix: 8 };
 * ```
 */
export interface IpRange extends IpAddress {
  readonly prefix: number;
}

const PREFIX = /^(?:0|[1-9][0-9]{0,2})$/;
/** Longest range text read: an IPv6 range with an IPv4 tail is about 50 characters. */
const MAX_RANGE_TEXT = 64;
const SHAPE = 'expected an IPv4 or IPv6 address or CIDR range, such as 203.0.113.0/24 or 2001:db8::/32';

/** Does `a` lie in `r`? Its first `r.prefix` bits equal the range's. */
export function inRange(a: IpAddress, r: IpRange): boolean {
  if (a.family !== r.family) return false;
  const whole = r.prefix >> 3;
  for (let i = 0; i < whole; i++) if (a.bytes[i] !== r.bytes[i]) return false;
  const rest = r.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (((a.bytes[whole] as number) ^ (r.bytes[whole] as number)) & mask) === 0;
}

/**
 * Does `inner` lie wholly inside `outer`?
 *
 * @example
 * ```ts
 * rangeWithin(readRange('10.1.0.0/16'), readRange('10.0.0.0/8')); // true
 * ```
 */
export function rangeWithin(inner: IpRange, outer: IpRange): boolean {
  return inner.family === outer.family && inner.prefix >= outer.prefix && inRange(inner, outer);
}

/**
 * The canonical text of a range: `<address>/<prefix>`, the address as
 * {@link formatAddress} writes it.
 *
 * @example
 * ```ts
 * formatRange(readRange('2001:DB8::/32')); // '2001:db8::/32'
 * ```
 */
export function formatRange(r: IpRange): string {
  return `${formatAddress(r)}/${r.prefix}`;
}

/** Read one range, or say what is wrong with it. */
function parseRange(text: unknown): IpRange | string {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_RANGE_TEXT) return SHAPE;
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  const a = parseAddress(addressText);
  if (a === undefined) return SHAPE;
  // The mapped form is refused as a range: it reads as IPv6 but would match IPv4 clients.
  if (a.family === 4 && addressText.includes(':')) return 'write an IPv4 range as IPv4 (203.0.113.0/24), not as IPv4-mapped IPv6';
  const max = a.family === 4 ? 32 : 128;
  let prefix = max;
  if (prefixText !== undefined) {
    if (!PREFIX.test(prefixText) || Number(prefixText) > max) return `the prefix length must be a whole number from 0 to ${max}`;
    prefix = Number(prefixText);
  }
  const masked = new Uint8Array(a.bytes);
  for (let bit = prefix; bit < max; bit++) masked[bit >> 3] = (masked[bit >> 3] as number) & ~(0x80 >> (bit & 7));
  const r: IpRange = { family: a.family, bytes: masked, prefix };
  if (!sameBytes(masked, a.bytes)) return `has bits set after the /${prefix} prefix: did you mean ${formatRange(r)}?`;
  return r;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Read one range that is known to be valid (a list {@link checkRanges}
 * returned, a stored one). Throws `ValidationError` otherwise.
 *
 * @example
 * ```ts
 * readRange('10.0.0.0/8').prefix; // 8
 * ```
 */
export function readRange(text: string): IpRange {
  const r = parseRange(text);
  if (typeof r === 'string') throw new ValidationError([{ path: '', message: r }]);
  return r;
}

/**
 * Options of {@link checkRanges}.
 *
 * @example
 * ```ts
 * const o: RangeListOptions = { path: 'allowedIps', max: 64, allowEmpty: false };
 * ```
 */
export interface RangeListOptions {
  /** Where the list is, for the issues. */
  readonly path: string;
  /** Most entries. */
  readonly max: number;
  /** Is `[]` a list (else an issue: omit the option instead)? */
  readonly allowEmpty: boolean;
}

/**
 * Check a list of ranges given by a caller: an array of 1 to `max` strings,
 * each an address or a CIDR range, none repeated (after canonical spelling).
 * Returns the canonical texts, in the order given. Throws one
 * `ValidationError` listing every problem.
 *
 * @example
 * ```ts
 * checkRanges(['203.0.113.0/24', '2001:DB8::/32', '192.0.2.7'], { path: 'allowedIps', max: 64, allowEmpty: false });
 * // ['203.0.113.0/24', '2001:db8::/32', '192.0.2.7/32']
 * checkRanges(['10.1.2.3/8'], { path: 'allowedIps', max: 64, allowEmpty: false }); // throws: did you mean 10.0.0.0/8?
 * ```
 */
export function checkRanges(value: unknown, options: RangeListOptions): string[] {
  const { path, max, allowEmpty } = options;
  if (!Array.isArray(value)) throw new ValidationError([{ code: 'invalid_type', path, message: 'must be an array of CIDR ranges' }]);
  if (value.length === 0 && !allowEmpty) {
    throw new ValidationError([{ code: 'too_small', path, message: 'must not be empty: leave it out to allow every address' }]);
  }
  if (value.length > max) throw new ValidationError([{ code: 'too_big', path, message: `at most ${max} entries` }]);
  const issues: IssueInput[] = [];
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const r = parseRange(value[i] as unknown);
    if (typeof r === 'string') {
      issues.push({ code: 'invalid_value', path: [path, i], message: r });
      continue;
    }
    const text = formatRange(r);
    if (seen.has(text)) issues.push({ code: 'duplicate', path: [path, i], message: `${text} is listed twice` });
    seen.add(text);
    out.push(text);
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
}

/**
 * A list of ranges compiled once, matched many times.
 *
 * @example
 * ```ts
 * const m = new RangeMatcher(['10.0.0.0/8', '2001:db8::/32']);
 * m.matches(parseAddress('10.2.3.4')!); // true
 * m.has('10.2.3.4');                    // true (text form)
 * ```
 */
export class RangeMatcher {
  readonly ranges: readonly IpRange[];

  /** @throws ValidationError when an entry is not a range. */
  constructor(list: readonly string[]) {
    this.ranges = Object.freeze(list.map(readRange));
  }

  /** Does `a` lie in one of the ranges? */
  matches(a: IpAddress): boolean {
    for (const r of this.ranges) if (inRange(a, r)) return true;
    return false;
  }

  /** {@link RangeMatcher.matches} for an address as text; `false` for text that is no address. */
  has(text: string | undefined): boolean {
    const a = parseAddress(text, true);
    return a !== undefined && this.matches(a);
  }

  /** Does every range of `this` lie inside one range of `outer`? (Narrowing: conservative, never wider.) */
  within(outer: RangeMatcher): boolean {
    return this.ranges.every((r) => outer.ranges.some((o) => rangeWithin(r, o)));
  }
}
