/**
 * Which network addresses a client metadata document may be fetched from: the
 * public internet only, plus loopback when the server allows it (a dev
 * instance). A URL chosen by whoever starts an authorization must never make
 * the server reach into its own network (SSRF): private ranges, link-local
 * (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast, reserved
 * and the IPv6 forms that embed or tunnel an IPv4 address are all refused.
 * @module
 */
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

// Not globally routable (IANA special-purpose registries). BlockList also matches
// IPv4-mapped IPv6 (::ffff:a.b.c.d) against the IPv4 rules.
const SPECIAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  SPECIAL.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  SPECIAL.addSubnet(net, bits, 'ipv6');
}

/**
 * @internal May a document be fetched from `address` (an IP address, as DNS
 * answered it)? Loopback only when `allowLoopback`.
 *
 * @example
 * ```ts
 * isAllowedAddress('93.184.215.14', false); // true
 * isAllowedAddress('10.0.0.7', false);      // false
 * isAllowedAddress('127.0.0.1', true);      // true
 * ```
 */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(address, type)) return allowLoopback;
  return !SPECIAL.check(address, type);
}

/**
 * @internal Is `hostname` (from a URL: IPv6 in brackets) a loopback name or address?
 *
 * @example
 * ```ts
 * isLoopbackHost('localhost'); // true
 * isLoopbackHost('[::1]');     // true
 * ```
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}
