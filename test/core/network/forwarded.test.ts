/**
 * The client address behind trusted proxies: X-Forwarded-For is read from the
 * right through trusted hops only; a header from anyone else is ignored; a
 * hostile header is bounded and never makes a proxy's address the client's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddress, formatAddress, RangeMatcher } from '../../../src/core/network';

const proxies = new RangeMatcher(['10.0.0.0/8', '2001:db8:ffff::/48']);
const client = (peer: unknown, xff: unknown, trusted: RangeMatcher | null = proxies): string | undefined => {
  const a = clientAddress(peer, xff, trusted);
  return a === undefined ? undefined : formatAddress(a);
};

describe('clientAddress', () => {
  it('without trusted proxies the peer is the client, whatever the header says', () => {
    expect(client('203.0.113.7', '198.51.100.1', null)).toBe('203.0.113.7');
    expect(client('::ffff:203.0.113.7', undefined, null)).toBe('203.0.113.7');
  });

  it('hostile X-Forwarded-For from an untrusted peer is ignored (spoofing)', () => {
    expect(client('203.0.113.7', '10.0.0.1')).toBe('203.0.113.7');
    expect(client('203.0.113.7', '198.51.100.1, 10.0.0.1')).toBe('203.0.113.7');
  });

  it('through a trusted proxy: the right-most hop that is not a trusted proxy', () => {
    expect(client('10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    // The client prepended a lie; the proxy appended the truth.
    expect(client('10.0.0.5', '198.51.100.1, 203.0.113.7')).toBe('203.0.113.7');
    // Two proxies deep.
    expect(client('10.0.0.5', '198.51.100.1, 203.0.113.7, 10.1.1.1')).toBe('203.0.113.7');
    expect(client('2001:db8:ffff::1', '2001:db8:1::9')).toBe('2001:db8:1::9');
    // Ports and brackets, as some proxies write them.
    expect(client('10.0.0.5', '203.0.113.7:51234')).toBe('203.0.113.7');
    expect(client('10.0.0.5', '[2001:db8:1::9]:443')).toBe('2001:db8:1::9');
    expect(client('10.0.0.5', '[2001:db8:1::9]')).toBe('2001:db8:1::9');
    expect(client('10.0.0.5', ' 203.0.113.7 ,\t10.1.1.1 ')).toBe('203.0.113.7');
  });

  it('a trusted peer without the header names no client (unknown, never the proxy); every hop trusted: the farthest one', () => {
    expect(client('10.0.0.5', undefined)).toBeUndefined();
    expect(client('10.0.0.5', '')).toBeUndefined();
    expect(client('10.0.0.5', '10.2.2.2, 10.1.1.1')).toBe('10.2.2.2');
  });

  it('an unreadable hop on the trusted path makes the client unknown, never the proxy', () => {
    expect(client('10.0.0.5', 'unknown')).toBeUndefined();
    expect(client('10.0.0.5', '203.0.113.7, garbage')).toBeUndefined();
    expect(client('10.0.0.5', '203.0.113.7,,10.1.1.1')).toBeUndefined();
    expect(client('10.0.0.5', '[2001:db8::1')).toBeUndefined();
    expect(client('10.0.0.5', '1.2.3.4:99999999')).toBeUndefined();
    // Garbage left of the first untrusted hop is never read.
    expect(client('10.0.0.5', 'garbage, 203.0.113.7')).toBe('203.0.113.7');
  });

  it('a peer that is no address is unknown', () => {
    expect(client(undefined, '203.0.113.7')).toBeUndefined();
    expect(client('', '203.0.113.7')).toBeUndefined();
    expect(client(42, '203.0.113.7')).toBeUndefined();
  });

  it('a huge header (hostile) is read from its last 4 KiB only; a cut hop is never read', () => {
    const big = `${'1.1.1.1, '.repeat(100_000)}203.0.113.7`;
    expect(client('10.0.0.5', big)).toBe('203.0.113.7');
    // Only trusted hops to the cut: the client is unknown, not a guess from a cut hop.
    const allTrusted = `${'10.1.1.1, '.repeat(1000)}10.2.2.2`;
    expect(client('10.0.0.5', allTrusted)).toBeUndefined();
    // More than 32 trusted hops: unknown.
    expect(client('10.0.0.5', `203.0.113.7, ${'10.1.1.1, '.repeat(40)}10.1.1.1`)).toBeUndefined();
  });

  it('never throws and never names a trusted proxy as the client when an untrusted hop exists (property)', () => {
    const hop = fc.oneof(
      fc.constantFrom('10.0.0.1', '10.9.9.9', '203.0.113.7', '198.51.100.1', '2001:db8:ffff::2', '2001:db8::9', 'unknown', ''),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('10.0.0.5', '203.0.113.9'), fc.string()), fc.array(hop, { maxLength: 12 }), (peer, hops) => {
        const got = client(peer, hops.join(', '));
        if (got !== undefined && got !== peer) {
          // A forwarded client is one of the hops, and every hop to its right is a trusted proxy.
          const i = hops.map((h) => h.trim()).lastIndexOf(got);
          expect(i).toBeGreaterThanOrEqual(0);
          for (const h of hops.slice(i + 1)) expect(proxies.has(h.trim())).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
