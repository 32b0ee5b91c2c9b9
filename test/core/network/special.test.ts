/**
 * The one loopback rule, the special-use address table and the one service-URL
 * rule of core/network: the table checked against node:net's BlockList on
 * random addresses, and the rules against hostile URLs (credentials,
 * fragments, IPv6 and IPv4-mapped forms, decimal, octal and hex hosts, names
 * that only look local).
 */
import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, isLoopbackHost, isPublicAddress, serviceUrl } from '../../../src/core/network';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/**
 * The IANA special-purpose address registries (IPv4 and IPv6), written out here rather than read
 * from the code, so that a range dropped from (or mistyped in) the code's table shows.
 */
const SPECIAL_USE_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/96',
  '::1/128',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

const blocked = new BlockList();
for (const range of SPECIAL_USE_RANGES) {
  const [net, bits] = range.split('/') as [string, string];
  blocked.addSubnet(net, Number(bits), net.includes(':') ? 'ipv6' : 'ipv4');
}

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
// Random IPv6, weighted toward the special prefixes so that the edges of each range are hit.
const v6 = fc
  .tuple(
    fc.oneof(fc.nat(0xffff), fc.constantFrom(0, 0x64, 0x100, 0x2001, 0x2002, 0x3fff, 0x5f00, 0xfc00, 0xfe80, 0xfec0, 0xff02)),
    fc.array(fc.oneof(fc.constant(0), fc.nat(0xffff)), { minLength: 7, maxLength: 7 }),
  )
  .map(([head, rest]) => [head, ...rest].map((g) => g.toString(16)).join(':'))
  // IPv4-mapped addresses are read as IPv4 (their own case below).
  .filter((a) => !/^0:0:0:0:0:ffff:/.test(a));

describe('the special-use address table', () => {
  it('agrees with node:net BlockList over the same ranges (IPv4, property)', () => {
    fc.assert(
      fc.property(v4, (a) => isPublicAddress(a) === !blocked.check(a, 'ipv4')),
      { numRuns: RUNS * 5 },
    );
  });

  it('agrees with node:net BlockList over the same ranges (IPv6, property)', () => {
    fc.assert(
      fc.property(v6, (a) => isPublicAddress(a) === !blocked.check(a, 'ipv6')),
      { numRuns: RUNS * 5 },
    );
  });

  it.each([
    ['169.254.169.254', 'the cloud metadata address'],
    ['::ffff:169.254.169.254', 'the metadata address, IPv4-mapped'],
    ['::ffff:a9fe:a9fe', 'the metadata address, IPv4-mapped in hex'],
    ['64:ff9b::a9fe:a9fe', 'the metadata address through NAT64'],
    ['2002:a9fe:a9fe::1', 'the metadata address through 6to4'],
    ['::a9fe:a9fe', 'the metadata address, IPv4-compatible (deprecated)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['10.0.0.7', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['127.0.0.2', 'loopback beyond .1'],
    ['0.0.0.0', 'this host'],
    ['::', 'unspecified'],
    ['fd00::1', 'unique local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['010.0.0.1', 'not an address (octal spelling)'],
    ['2130706433', 'not an address (decimal spelling)'],
    ['example.com', 'a name'],
  ])('%s is not public (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.215.14'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('loopback is all of 127.0.0.0/8 and ::1, IPv4-mapped forms included, and nothing else', () => {
    for (const a of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:2'])
      expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['128.0.0.1', '126.255.255.255', '::2', '::127.0.0.1', '10.0.0.1', 'localhost', '', '127.1'])
      expect(isLoopbackAddress(a), a).toBe(false);
  });
});

describe('the one loopback rule for URL hosts', () => {
  it.each([
    ['http://localhost:8080/', true],
    ['http://LOCALHOST/', true],
    ['http://127.0.0.1/', true],
    ['http://127.0.0.2/', true],
    ['http://127.1/', true],
    ['http://2130706433/', true],
    ['http://0177.0.0.1/', true],
    ['http://0x7f.0.0.1/', true],
    ['http://[::1]/', true],
    ['http://[0:0:0:0:0:0:0:1]/', true],
    ['http://[::ffff:127.0.0.1]/', true],
    ['http://app.localhost/', false],
    ['http://localhost.evil.example/', false],
    ['http://127.0.0.1.nip.io/', false],
    ['http://[::127.0.0.1]/', false],
    ['http://[::ffff:10.0.0.1]/', false],
    ['http://10.0.0.1/', false],
    ['http://0.0.0.0/', false],
  ])('%s -> %s', (text, loopback) => {
    expect(isLoopbackHost(new URL(text).hostname)).toBe(loopback);
  });

  it('a host given as raw text is read as strictly as an address (no octal, no zone)', () => {
    expect(isLoopbackHost('0177.0.0.1')).toBe(false);
    expect(isLoopbackHost('[::1%lo]')).toBe(false);
    expect(isLoopbackHost('[::1]')).toBe(true);
  });
});

describe('the one service-URL rule', () => {
  it.each([
    'https://sso.example.com/realms/acme',
    'https://sso.example.com:8443/x?y=1',
    'http://localhost:8080/',
    'http://127.0.0.2:8080/',
    'http://[::1]:8080/',
    'http://2130706433:8080/',
  ])('accepts %s', (text) => {
    expect(serviceUrl(text)).toBeInstanceOf(URL);
    expect(serviceUrl(new URL(text))).toBeInstanceOf(URL);
  });

  it.each([
    ['https://user:pw@sso.example.com/', 'user name or password'],
    ['https://user@sso.example.com/', 'user name or password'],
    ['http://user:pw@127.0.0.1/', 'user name or password'],
    ['https://sso.example.com/#x', 'fragment'],
    ['https://sso.example.com/#', 'fragment'],
    ['http://sso.example.com/', 'https'],
    ['http://app.localhost/', 'https'],
    ['http://127.0.0.1.nip.io/', 'https'],
    ['http://[::ffff:10.0.0.1]/', 'https'],
    ['http://169.254.169.254/latest/meta-data/', 'https'],
    ['ftp://127.0.0.1/', 'https'],
    ['file:///etc/passwd', 'https'],
    ['javascript:alert(1)', 'https'],
    ['//sso.example.com/', 'absolute'],
    [' https://sso.example.com/', 'printable'],
    ['https://sso.example.com/\tx', 'printable'],
    ['https://sso.example.com/\nx', 'printable'],
    ['', 'printable'],
    [`https://e.example/${'a'.repeat(2100)}`, 'printable'],
  ])('refuses %j (%s)', (text, said) => {
    const got = serviceUrl(text);
    expect(typeof got).toBe('string');
    expect(got).toContain(said);
  });

  it('never throws, and what it accepts is https or loopback http without credentials or fragment (property)', () => {
    const hosts = fc.constantFrom('localhost', '127.0.0.9', '[::1]', 'example.com', '10.0.0.1', 'app.localhost', '2130706433');
    const urls = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc
        .tuple(
          fc.constantFrom('http', 'https', 'ftp', 'HTTP'),
          fc.constantFrom('', 'u@', 'u:p@', ':@'),
          hosts,
          fc.constantFrom('', '/', '/x#', '/x#y', '/x?q'),
        )
        .map(([s, c, h, p]) => `${s}://${c}${h}${p}`),
    );
    fc.assert(
      fc.property(fc.oneof(urls, fc.anything()), (value) => {
        const got = serviceUrl(value);
        if (typeof got === 'string') return true;
        return (
          (got.protocol === 'https:' || (got.protocol === 'http:' && isLoopbackHost(got.hostname))) &&
          got.username === '' &&
          got.password === '' &&
          !String(value).includes('#')
        );
      }),
      { numRuns: RUNS * 3 },
    );
  });
});
