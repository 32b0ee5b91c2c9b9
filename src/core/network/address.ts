/**
 * IP addresses as text and as bytes: the one parser behind `allowedIps`,
 * `trustProxy` and the client address of a request. Written out rather than
 * taken from `node:net` so that the root package keeps running where there is
 * no `node:net` (workers, Deno, Bun's fetch handlers); the tests check it
 * against `node:net`'s `BlockList` and `isIP`.
 *
 * Strict on purpose: an address is what a socket or a proxy writes, so every
 * other spelling (`010.0.0.1`, which some parsers read as octal, `1.2.3`,
 * hex in IPv4, more than one `::`) is refused rather than guessed at. An
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, what a dual-stack socket
 * reports for an IPv4 client) is the IPv4 address it carries.
 * @module
 */

/**
 * An IP address: 4 bytes for IPv4, 16 for IPv6 (never an IPv4-mapped one).
 *
 * @example
 * ```ts
 * const a: IpAddress = { family: 4, bytes: new Uint8Array([192, 0, 2, 7]) };
 * ```
 */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

/** Longer text is no address (the longest IPv6 text with an IPv4 tail and a zone is far shorter). */
const MAX_TEXT = 96;
const V4_PART = /^(?:0|[1-9][0-9]{0,2})$/;
const V6_GROUP = /^[0-9A-Fa-f]{1,4}$/;
const ZONE = /^[A-Za-z0-9_.-]{1,32}$/;

/**
 * Read an IP address. `zone` allows an IPv6 zone (`fe80::1%eth0`, as a
 * socket reports a link-local peer); the zone is dropped. Returns
 * `undefined` for anything that is not exactly an address.
 *
 * @example
 * ```ts
 * parseAddress('192.0.2.7')?.family;          // 4
 * parseAddress('::ffff:192.0.2.7')?.family;   // 4 (IPv4-mapped)
 * parseAddress('2001:db8::1')?.family;        // 6
 * parseAddress('010.0.0.1');                  // undefined
 * ```
 */
export function parseAddress(text: unknown, zone = false): IpAddress | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT) return undefined;
  let t = text;
  const pct = t.indexOf('%');
  if (pct >= 0) {
    if (!zone || !ZONE.test(t.slice(pct + 1))) return undefined;
    t = t.slice(0, pct);
  }
  if (!t.includes(':')) {
    // A zone belongs to an IPv6 address only.
    const v4 = pct >= 0 ? undefined : parseV4(t);
    return v4 === undefined ? undefined : { family: 4, bytes: v4 };
  }
  const v6 = parseV6(t);
  if (v6 === undefined) return undefined;
  return isMapped(v6) ? { family: 4, bytes: v6.slice(12) } : { family: 6, bytes: v6 };
}

function parseV4(t: string): Uint8Array | undefined {
  const parts = t.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i] as string;
    if (!V4_PART.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

/** Groups of one side of `::` (or of a whole address), an IPv4 tail allowed as the last part when `last`. */
function groupsOf(text: string, last: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const out: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string;
    if (last && i === parts.length - 1 && p.includes('.')) {
      const v4 = parseV4(p);
      if (v4 === undefined) return undefined;
      out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
    } else {
      if (!V6_GROUP.test(p)) return undefined;
      out.push(parseInt(p, 16));
    }
  }
  return out;
}

function parseV6(t: string): Uint8Array | undefined {
  const gap = t.indexOf('::');
  let groups: number[];
  if (gap < 0) {
    const all = groupsOf(t, true);
    if (all?.length !== 8) return undefined;
    groups = all;
  } else {
    // One `::` at most: `:::` and `1::2::3` are refused here.
    if (t.indexOf('::', gap + 1) >= 0 || t.includes(':::')) return undefined;
    const head = groupsOf(t.slice(0, gap), false);
    const tail = groupsOf(t.slice(gap + 2), true);
    if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** `::ffff:a.b.c.d`: ten zero bytes, two 0xff bytes, then the IPv4 address. */
function isMapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/**
 * The canonical text of an address: dotted decimal for IPv4, RFC 5952 for
 * IPv6 (lower case, no leading zeros, the longest run of two or more zero
 * groups as `::`, the first of equal runs).
 *
 * @example
 * ```ts
 * formatAddress(parseAddress('2001:DB8:0:0:0:0:0:1')!); // '2001:db8::1'
 * ```
 */
export function formatAddress(a: IpAddress): string {
  const b = a.bytes;
  if (a.family === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(((b[2 * i] as number) << 8) | (b[2 * i + 1] as number));
  let bestAt = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestAt = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (gs: number[]): string => gs.map((g) => g.toString(16)).join(':');
  if (bestAt < 0) return hex(groups);
  return `${hex(groups.slice(0, bestAt))}::${hex(groups.slice(bestAt + bestLen))}`;
}

/**
 * The canonical text of an address given as text, or `undefined` when it is
 * none (see {@link parseAddress}; a zone is allowed and dropped).
 *
 * @example
 * ```ts
 * canonicalAddress('::ffff:192.0.2.7'); // '192.0.2.7'
 * canonicalAddress('nonsense');         // undefined
 * ```
 */
export function canonicalAddress(text: unknown): string | undefined {
  const a = parseAddress(text, true);
  return a === undefined ? undefined : formatAddress(a);
}
