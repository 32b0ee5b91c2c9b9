/**
 * Wrong user codes on the device page (RFC 8628 section 5.1): a user code is
 * short (8 letters of 20), so guessing must be slowed. Each client address may
 * enter at most `limit` wrong codes per window; past that, every code it posts
 * is refused with a page that says why and when to try again, before the code
 * is looked up (a right guess after the limit is refused too, or the limit
 * would only slow, not stop, a guesser). Counted in this process, bounded: the
 * oldest address is forgotten first.
 * @module
 */
import type { IncomingMessage } from 'node:http';

const MAX_ADDRESSES = 10_000;

/** @internal Wrong user codes per client address. */
export interface UserCodeAttempts {
  /** A wrong code was posted from `address`. */
  failed(address: string): void;
  /** Seconds until `address` may post a code again; 0 when it may now. */
  waitFor(address: string): number;
}

/**
 * @internal The address wrong codes are counted by: the peer, or behind a trusted
 * proxy the address the proxy saw (the last `X-Forwarded-For` entry, which the
 * client cannot choose; the first one it can).
 *
 * @example
 * ```ts
 * attemptAddress(req, false); // '127.0.0.1'
 * ```
 */
export function attemptAddress(req: IncomingMessage, trustProxy: boolean): string {
  const peer = req.socket?.remoteAddress ?? 'unknown';
  if (!trustProxy) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').pop()?.trim();
  return last === undefined || last === '' ? peer : last.slice(0, 64);
}

/**
 * @internal At most `limit` wrong codes per address in `windowMs`.
 *
 * @example
 * ```ts
 * const attempts = userCodeAttempts(10, 60_000, Date.now);
 * attempts.failed('192.0.2.1');
 * attempts.waitFor('192.0.2.1'); // 0 until the tenth wrong code
 * ```
 */
export function userCodeAttempts(limit: number, windowMs: number, now: () => number): UserCodeAttempts {
  const seen = new Map<string, { since: number; count: number }>();
  const current = (address: string): { since: number; count: number } | undefined => {
    const entry = seen.get(address);
    if (entry !== undefined && now() - entry.since >= windowMs) {
      seen.delete(address);
      return undefined;
    }
    return entry;
  };
  return Object.freeze({
    failed(address: string): void {
      const entry = current(address) ?? { since: now(), count: 0 };
      entry.count += 1;
      seen.delete(address);
      if (seen.size >= MAX_ADDRESSES) seen.delete(seen.keys().next().value as string);
      seen.set(address, entry);
    },
    waitFor(address: string): number {
      const entry = current(address);
      if (entry === undefined || entry.count < limit) return 0;
      return Math.max(1, Math.ceil((entry.since + windowMs - now()) / 1000));
    },
  });
}
