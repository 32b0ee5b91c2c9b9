/**
 * The special-use address table (rule N5) and the one loopback rule (N2). A URL chosen by
 * someone else (a client id document, an IdP's keys, a server flag) must not
 * make this code reach into its own network (SSRF), and plain `http` is
 * acceptable only where the traffic never leaves the machine. Both questions
 * are answered here, once, on the strict parser of address.ts: an
 * IPv4-mapped IPv6 address is the IPv4 address it carries, so
 * `[::ffff:127.0.0.1]` is loopback and `[::ffff:10.0.0.1]` private.
 * @module
 */
import { parseAddress, type IpAddress } from './address';
import { inRange, readRange, type IpRange } from './range';

/** Loopback: all of 127.0.0.0/8 (every address there stays on the host, not only .1) and ::1. */
const LOOPBACK: readonly IpRange[] = ['127.0.0.0/8', '::1/128'].map(readRange);

// Not globally routable (the IANA special-purpose address registries), loopback included.
// `::/96` (IPv4-compatible, deprecated) and the NAT64 and 6to4 prefixes embed an IPv4
// address; Teredo (2001::/32) sits in 2001::/23.
const SPECIAL: readonly IpRange[] = [
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
].map(readRange);

function read(address: IpAddress | string): IpAddress | undefined {
  return typeof address === 'string' ? parseAddress(address, true) : address;
}

/**
 * Is `address` (text as a socket or DNS reports it, or parsed) a loopback
 * address: 127.0.0.0/8 or ::1, IPv4-mapped forms included? Text that is no
 * address is not loopback.
 *
 * @example
 * ```ts
 * isLoopbackAddress('127.0.0.2');        // true
 * isLoopbackAddress('::ffff:127.0.0.1'); // true
 * isLoopbackAddress('10.0.0.1');         // false
 * ```
 */
export function isLoopbackAddress(address: IpAddress | string): boolean {
  const a = read(address);
  return a !== undefined && LOOPBACK.some((r) => inRange(a, r));
}

/**
 * Is `address` globally routable: an address, and in none of the special-use
 * ranges (private, loopback, link-local with the cloud metadata address,
 * carrier-grade NAT, documentation, multicast, reserved, and the IPv6 forms
 * that embed or tunnel an IPv4 address)? Text that is no address is not.
 *
 * @example
 * ```ts
 * isPublicAddress('93.184.215.14');   // true
 * isPublicAddress('169.254.169.254'); // false
 * isPublicAddress('::ffff:10.0.0.7'); // false
 * ```
 */
export function isPublicAddress(address: IpAddress | string): boolean {
  const a = read(address);
  return a !== undefined && !SPECIAL.some((r) => inRange(a, r));
}

/**
 * The one loopback rule for a URL's host (`url.hostname`: IPv6 in brackets,
 * as the WHATWG parser leaves it, which has already turned `2130706433` and
 * `0177.0.0.1` into `127.0.0.1`): the name `localhost`, or a loopback
 * address. Other names, `*.localhost` among them, are not: a resolver may
 * send them anywhere, and plain `http` must never leave the machine.
 *
 * @example
 * ```ts
 * isLoopbackHost('localhost');       // true
 * isLoopbackHost('127.0.0.2');       // true
 * isLoopbackHost('[::1]');           // true
 * isLoopbackHost('app.localhost');   // false
 * ```
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost') return true;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  // A zone (`fe80::1%eth0`) is no loopback; parseAddress without `zone` refuses it.
  const a = parseAddress(bare);
  return a !== undefined && LOOPBACK.some((r) => inRange(a, r));
}
