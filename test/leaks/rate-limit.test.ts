/**
 * The rate limit of the credential revocation endpoint: token buckets per
 * client address, bounded in memory, and never reset by a flood of fresh
 * addresses (IPv6 clients counted by their /64).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientKey, RateLimiter } from '../../src/leaks/rate-limit';

describe('clientKey', () => {
  it.each([
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['[2001:db8::1]', '2001:db8::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['::1', '::/64'],
    ['::', '::/64'],
    ['1::', '1::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b::/64'],
    ['proxy-reported-name', 'proxy-reported-name'],
    ['x'.repeat(100), 'x'.repeat(64)],
  ])('%j -> %j', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});

describe('RateLimiter', () => {
  it('allows `requests` per window, refills over the window, and says how long to wait', () => {
    let now = 0;
    const r = new RateLimiter({ requests: 3, windowMs: 60_000, maxClients: 10 }, () => now);
    expect([r.take('a'), r.take('a'), r.take('a')]).toEqual([0, 0, 0]);
    expect(r.take('a')).toBe(20); // one request back every 20 s
    expect(r.take('b')).toBe(0);
    now += 20_000;
    expect(r.take('a')).toBe(0);
    expect(r.take('a')).toBe(20);
  });

  it('a flood of fresh addresses resets no one: beyond maxClients they share one overflow bucket', () => {
    let now = 0;
    const r = new RateLimiter({ requests: 1, windowMs: 60_000, maxClients: 3 }, () => now);
    for (const a of ['a', 'b', 'c']) expect(r.take(a)).toBe(0);
    expect(r.take('d')).toBe(0); // the overflow bucket's one request
    expect(r.take('e')).toBeGreaterThan(0);
    expect(r.take('a')).toBeGreaterThan(0); // 'a' was not forgotten
    expect(r.size).toBeLessThanOrEqual(4);
    now += 60_000; // everyone refilled: the oldest may now go
    expect(r.take('f')).toBe(0);
  });

  it('property: no client ever gets more than its allowance, and memory stays bounded', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), fc.nat({ max: 30_000 })), { maxLength: 300 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 4 }),
        (steps, requests, maxClients) => {
          const windowMs = 60_000;
          let now = 0;
          const r = new RateLimiter({ requests, windowMs, maxClients }, () => now);
          const allowed = new Map<string, number>();
          for (const [client, dt] of steps) {
            now += dt;
            if (r.take(client) === 0) allowed.set(client, (allowed.get(client) ?? 0) + 1);
            expect(r.size).toBeLessThanOrEqual(maxClients + 1);
          }
          // Each client: its bucket's capacity plus what refilled over the whole run.
          for (const n of allowed.values()) expect(n).toBeLessThanOrEqual(requests + Math.floor((now * requests) / windowMs) + requests);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });
});
