/**
 * Per-client rate limit of the credential revocation endpoint: a token bucket
 * per client address, in memory, bounded. An endpoint open to anyone is a
 * place to spend the server's CPU (up to 1 000 signature checks a request);
 * the limit makes that cost per client, not per request.
 *
 * IPv6 clients are counted by their /64 (one subscriber usually holds a whole
 * /64, and counting single addresses would give them 2^64 buckets), IPv4
 * clients by their address. When the table is full, the least recently seen
 * client's bucket goes only if it has refilled (forgetting it changes
 * nothing); otherwise new clients share one overflow bucket, so that a flood
 * of fresh addresses never resets anyone's limit.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import { isPlainObject } from '../core/vocabulary';
import { formatAddress, formatRange, parseAddress } from '../core/network';

/**
 * The rate limit of {@link credentialRevocationHandler}: at most `requests` per client address in
 * any `windowMs` (a token bucket: a client that stays away gets its full allowance back).
 *
 * @example
 * ```ts
 * const limit: RevocationRateLimit = { requests: 10, windowMs: 60_000 }; // 10 a minute per address
 * ```
 */
export interface RevocationRateLimit {
  /** Requests allowed per client in one window; 1 to 100 000. Default 60 (GitHub's own limit per hour). */
  requests?: number;
  /** The window, in milliseconds; 1 000 to 86 400 000. Default 3 600 000 (one hour). */
  windowMs?: number;
  /** Clients remembered at once; 1 to 1 000 000. Default 10 000. */
  maxClients?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** @internal the token buckets of one handler. */
export class RateLimiter {
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #windowMs: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();
  /** Shared by the clients that found the table full; never in the table, so never evicted. */
  #overflow: Bucket | undefined;

  constructor(limit: Required<RevocationRateLimit>, now: () => number = Date.now) {
    this.#capacity = limit.requests;
    this.#windowMs = limit.windowMs;
    this.#perMs = limit.requests / limit.windowMs;
    this.#maxClients = limit.maxClients;
    this.#now = now;
  }

  /** Buckets held, the overflow bucket included (for tests). */
  get size(): number {
    return this.#buckets.size + (this.#overflow === undefined ? 0 : 1);
  }

  /** Take one request for `address`: `0` when allowed, else the whole seconds to wait. */
  take(address: string | undefined): number {
    const now = this.#now();
    const key = clientKey(address);
    let bucket = this.#buckets.get(key);
    if (bucket !== undefined) {
      // Re-inserted: Map order is least recently seen first.
      this.#buckets.delete(key);
      this.#buckets.set(key, bucket);
    } else {
      bucket = this.#admit(now);
      if (bucket === undefined) bucket = this.#overflow ??= { tokens: this.#capacity, at: now };
      else this.#buckets.set(key, bucket);
    }
    // A clock that steps back refills nothing.
    const elapsed = Math.max(0, now - bucket.at);
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + elapsed * this.#perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000));
  }

  /** A fresh bucket for a new client, or `undefined` when the table is full of clients still limited. */
  #admit(now: number): Bucket | undefined {
    if (this.#buckets.size >= this.#maxClients) {
      const [oldestKey, oldest] = this.#buckets.entries().next().value as [string, Bucket];
      if (now - oldest.at < this.#windowMs) return undefined;
      this.#buckets.delete(oldestKey);
    }
    return { tokens: this.#capacity, at: now };
  }
}

/**
 * @internal the bucket key of a client address: an IPv4 address as it is (an IPv4-mapped IPv6
 * address as its IPv4), an IPv6 address by its /64 (as core/network writes a range), anything else
 * (a name a proxy reported) cut to 64 characters; none at all is `unknown` (all such clients share
 * one bucket).
 */
export function clientKey(address: string | undefined): string {
  if (typeof address !== 'string' || address === '') return 'unknown';
  let a = address.trim().toLowerCase();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const ip = parseAddress(a, true);
  if (ip === undefined) return a.slice(0, 64);
  if (ip.family === 4) return formatAddress(ip);
  // One host of IPv6 holds a whole /64: a bucket per address would be a bucket per request.
  const bytes = new Uint8Array(16);
  bytes.set(ip.bytes.subarray(0, 8));
  return formatRange({ family: 6, bytes, prefix: 64 });
}

/** @internal the `rateLimit` option: `false` (off), or the limit with its defaults. Throws `ValidationError`. */
export function checkRateLimit(value: unknown, path: string): Required<RevocationRateLimit> | false {
  if (value === false) return false;
  const given = value === undefined ? {} : value;
  if (!isPlainObject(given)) throw new ValidationError([{ path, message: 'must be false or { requests?, windowMs?, maxClients? }' }]);
  const issues: IssueInput[] = [];
  for (const key of Reflect.ownKeys(given)) {
    if (key !== 'requests' && key !== 'windowMs' && key !== 'maxClients') {
      issues.push({ code: 'unrecognized_keys', path: `${path}.${String(key).slice(0, 64)}`, message: 'unknown option' });
    }
  }
  const int = (name: keyof RevocationRateLimit, min: number, max: number, fallback: number): number => {
    const v = given[name];
    if (v === undefined) return fallback;
    if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
    issues.push({ path: `${path}.${name}`, message: `must be an integer from ${min} to ${max}` });
    return fallback;
  };
  const limit = {
    requests: int('requests', 1, 100_000, 60),
    windowMs: int('windowMs', 1_000, 86_400_000, 3_600_000),
    maxClients: int('maxClients', 1, 1_000_000, 10_000),
  };
  if (issues.length > 0) throw new ValidationError(issues);
  return limit;
}
