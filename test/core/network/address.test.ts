/**
 * The address and range parser of `allowedIps` and `trustProxy`, checked
 * against node:net (`isIP`, `BlockList`) on random addresses and ranges, and
 * against the spellings a strict parser must refuse.
 */
import { BlockList, isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors';
import { canonicalAddress, checkRanges, formatAddress, parseAddress, RangeMatcher } from '../../../src/core/network';
import { readRange } from '../../../src/core/network/range';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
const v6Groups = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 });
// Random IPv6 text in its full form, in the compressed form node writes, and in upper case.
const v6 = v6Groups
  .filter((g) => !(g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff))
  .chain((g) =>
    fc.constantFrom(
      g.map((x) => x.toString(16)).join(':'),
      g.map((x) => x.toString(16).padStart(4, '0').toUpperCase()).join(':'),
      new URL(`http://[${g.map((x) => x.toString(16)).join(':')}]/`).hostname.slice(1, -1),
    ),
  );
// Runs of zeros, so that `::` compression is exercised.
const sparseV6 = fc
  .array(fc.oneof(fc.constant(0), fc.constant(0), fc.nat(0xffff)), { minLength: 8, maxLength: 8 })
  .filter((g) => !(g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff))
  .map((g) => new URL(`http://[${g.map((x) => x.toString(16)).join(':')}]/`).hostname.slice(1, -1));

describe('parseAddress', () => {
  it('accepts every IPv4 and IPv6 address node:net accepts, with node’s canonical IPv6 text (property)', () => {
    fc.assert(
      fc.property(fc.oneof(v4, v6, sparseV6), (text) => {
        const a = parseAddress(text);
        expect(a, text).toBeDefined();
        expect(a?.family).toBe(isIP(text));
        // node's WHATWG URL serialises IPv6 per RFC 5952, as formatAddress must.
        if (a?.family === 6) expect(formatAddress(a)).toBe(new URL(`http://[${text}]/`).hostname.slice(1, -1));
        else expect(formatAddress(a!)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses what is not exactly an address (leading zeros, short forms, two ::, hex IPv4, junk)', () => {
    for (const bad of [
      '',
      '010.0.0.1',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '0x7f.0.0.1',
      '1.2.3.4 ',
      ' 1.2.3.4',
      '1::2::3',
      ':::',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '12345::',
      'g::1',
      '::1.2.3',
      '1.2.3.4%eth0',
      'localhost',
      '1'.repeat(200),
    ]) {
      expect(parseAddress(bad), bad).toBeUndefined();
      if (isIP(bad) !== 0) throw new Error(`node accepts ${bad}`);
    }
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(canonicalAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(canonicalAddress('::FFFF:c000:0207')).toBe('192.0.2.7');
    expect(canonicalAddress('0:0:0:0:0:ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(parseAddress('::ffff:192.0.2.7')?.family).toBe(4);
  });

  it('takes a zone only when asked (a socket’s link-local peer), and drops it', () => {
    expect(parseAddress('fe80::1%eth0')).toBeUndefined();
    expect(canonicalAddress('fe80::1%eth0')).toBe('fe80::1');
    expect(canonicalAddress('fe80::1%')).toBeUndefined();
  });
});

describe('ranges', () => {
  const ranges4 = fc.tuple(v4, fc.integer({ min: 0, max: 32 }));
  const ranges6 = fc.tuple(fc.oneof(v6, sparseV6), fc.integer({ min: 0, max: 128 }));

  /** The range of `addr/prefix` with host bits cleared, through node's own BlockList to learn the network. */
  function masked(addr: string, prefix: number): string {
    const a = parseAddress(addr)!;
    const bytes = new Uint8Array(a.bytes);
    const max = a.family === 4 ? 32 : 128;
    for (let bit = prefix; bit < max; bit++) bytes[bit >> 3] = (bytes[bit >> 3] as number) & ~(0x80 >> (bit & 7));
    return `${formatAddress({ family: a.family, bytes })}/${prefix}`;
  }

  it('matches what node:net BlockList matches within a family, IPv4-mapped clients against IPv4 ranges (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(ranges4, ranges6),
        fc.array(fc.oneof(v4, v6, sparseV6), { minLength: 1, maxLength: 8 }),
        ([net, prefix], clients) => {
          const range = masked(net, prefix);
          const family = isIP(net) === 4 ? 'ipv4' : 'ipv6';
          const block = new BlockList();
          block.addSubnet(range.split('/')[0] as string, prefix, family);
          const m = new RangeMatcher(checkRanges([range], { path: 'x', max: 64, allowEmpty: false }));
          for (const c of [...clients, net, range.split('/')[0] as string]) {
            const cf = isIP(c) === 4 ? 'ipv4' : 'ipv6';
            // Families stay apart: BlockList lets an IPv6 range over ::ffff:0:0/96 match IPv4 clients, svc-auth does not.
            expect(m.has(c), `${c} in ${range}`).toBe(cf === family && block.check(c, cf));
            if (cf === 'ipv4') expect(m.has(`::ffff:${c}`), `::ffff:${c} in ${range}`).toBe(family === 'ipv4' && block.check(c, 'ipv4'));
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('writes ranges canonically and refuses bits after the prefix with the range meant', () => {
    expect(
      checkRanges(['203.0.113.0/24', '2001:DB8::/32', '192.0.2.7', '::1'], { path: 'allowedIps', max: 64, allowEmpty: false }),
    ).toEqual(['203.0.113.0/24', '2001:db8::/32', '192.0.2.7/32', '::1/128']);
    const err = (() => {
      try {
        checkRanges(['10.1.2.3/8', 'nope', '1.2.3.4/33', '::ffff:10.0.0.0/104', '10.0.0.0/8', '10.0.0.0/8'], {
          path: 'allowedIps',
          max: 64,
          allowEmpty: false,
        });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as ValidationError).issues;
    expect(issues.map((i) => i.pathText)).toEqual(['allowedIps[0]', 'allowedIps[1]', 'allowedIps[2]', 'allowedIps[3]', 'allowedIps[5]']);
    expect(issues[0]?.message).toContain('did you mean 10.0.0.0/8?');
    expect(issues[4]?.code).toBe('duplicate');
  });

  it('refuses a list that is not one, is empty, or is longer than the limit', () => {
    const o = { path: 'allowedIps', max: 3, allowEmpty: false };
    expect(() => checkRanges('10.0.0.0/8', o)).toThrow(ValidationError);
    expect(() => checkRanges([], o)).toThrow(/leave it out/);
    expect(checkRanges([], { ...o, allowEmpty: true })).toEqual([]);
    expect(() => checkRanges(['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4'], o)).toThrow(/at most 3/);
  });

  it('within(): every range of the inner list lies inside one range of the outer (property: narrowing only)', () => {
    const any = fc.oneof(ranges4, ranges6).map(([net, prefix]) => masked(net, prefix));
    fc.assert(
      fc.property(
        fc.uniqueArray(any, { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(any, { minLength: 1, maxLength: 4 }),
        fc.array(fc.oneof(v4, v6, sparseV6), { maxLength: 10 }),
        (outerList, innerList, clients) => {
          const outer = new RangeMatcher(outerList);
          const inner = new RangeMatcher(innerList);
          if (!inner.within(outer)) return;
          // Every address the inner list admits, the outer admits too: the network addresses and random ones.
          for (const c of [...clients, ...innerList.map((r) => r.split('/')[0] as string)])
            if (inner.has(c)) expect(outer.has(c)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
    expect(new RangeMatcher(['10.1.0.0/16']).within(new RangeMatcher(['10.0.0.0/8']))).toBe(true);
    expect(new RangeMatcher(['10.0.0.0/8']).within(new RangeMatcher(['10.1.0.0/16']))).toBe(false);
    expect(new RangeMatcher(['10.0.0.0/8']).within(new RangeMatcher(['::/0']))).toBe(false);
    expect(readRange('0.0.0.0/0').prefix).toBe(0);
  });
});
