/**
 * The client address of a request that may have come through proxies.
 *
 * The peer of the connection is the only address nobody can forge. A proxy
 * that the server trusts (`createAuth({ trustProxy })`) appends the address
 * it received the request from to `X-Forwarded-For`; anything to the left of
 * that was written by whoever sent the request, and is believed only as far
 * as the chain of trusted proxies reaches. So the header is read from the
 * right: each hop that is a trusted proxy passes the question on to the hop
 * it names, and the first hop that is not a trusted proxy is the client. A
 * peer that is not trusted is the client itself, whatever the header says.
 *
 * Bounded: only the last 4 KiB of the header and at most 32 hops are read,
 * in one pass from the right; a hop that is not an address (`unknown`,
 * garbage, a hop cut by the 4 KiB limit), or a trusted peer with no header
 * at all, makes the client unknown rather than letting a proxy's own address
 * stand in for it.
 * @module
 */
import { parseAddress, type IpAddress } from './address';
import type { RangeMatcher } from './range';

const MAX_HEADER = 4096;
const MAX_HOPS = 32;
const PORT = /^[0-9]{1,5}$/;

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** One hop without surrounding spaces: `a.b.c.d`, `a.b.c.d:port`, an IPv6 address, `[v6]` or `[v6]:port`. */
function parseHop(text: string, from: number, to: number): IpAddress | undefined {
  let start = from;
  let end = to;
  while (start < end && isOws(text.charCodeAt(start))) start++;
  while (end > start && isOws(text.charCodeAt(end - 1))) end--;
  if (end - start > 128) return undefined;
  const hop = text.slice(start, end);
  if (hop.startsWith('[')) {
    const close = hop.indexOf(']');
    if (close < 0) return undefined;
    const rest = hop.slice(close + 1);
    if (rest !== '' && !(rest.startsWith(':') && PORT.test(rest.slice(1)))) return undefined;
    const a = parseAddress(hop.slice(1, close), true);
    // Brackets hold an IPv6 address (an IPv4-mapped one reads as IPv4, which is fine).
    return a !== undefined && hop.slice(1, close).includes(':') ? a : undefined;
  }
  const colon = hop.indexOf(':');
  if (colon >= 0 && colon === hop.lastIndexOf(':') && hop.includes('.')) {
    // IPv4 with a port, as some proxies write it.
    if (!PORT.test(hop.slice(colon + 1))) return undefined;
    const a = parseAddress(hop.slice(0, colon));
    return a?.family === 4 ? a : undefined;
  }
  return parseAddress(hop, true);
}

/**
 * The client address of a request whose connection came from `peer`, given
 * its `X-Forwarded-For` header and the trusted proxies (`null`: none, the
 * peer is the client). `undefined` when the peer is not an address, when a
 * trusted peer sends no header (the proxy named no client, and the proxy is
 * not one), or when the header, read from the right through trusted hops,
 * reaches a hop that is not one. When every hop is a trusted proxy, the
 * farthest one is the client.
 *
 * @example
 * ```ts
 * const proxies = new RangeMatcher(['10.0.0.0/8']);
 * clientAddress('10.0.0.5', '198.51.100.9, 203.0.113.7', proxies); // 203.0.113.7 (198.51.100.9 was written by the client)
 * clientAddress('203.0.113.7', '10.9.9.9', proxies);               // 203.0.113.7 (an untrusted peer's header is ignored)
 * clientAddress('10.0.0.5', undefined, proxies);                   // undefined (a trusted proxy that names no client)
 * ```
 */
export function clientAddress(peer: unknown, forwardedFor: unknown, trusted: RangeMatcher | null): IpAddress | undefined {
  const p = parseAddress(peer, true);
  if (p === undefined) return undefined;
  if (trusted === null || !trusted.matches(p)) return p;
  // A trusted proxy that names nobody is no client: taking the proxy for one would let a token
  // limited to the proxy's range pass for any client that reached the proxy without the header.
  if (typeof forwardedFor !== 'string' || forwardedFor === '') return undefined;
  const truncated = forwardedFor.length > MAX_HEADER;
  const text = truncated ? forwardedFor.slice(forwardedFor.length - MAX_HEADER) : forwardedFor;
  let end = text.length;
  for (let hops = 0; hops < MAX_HOPS; hops++) {
    const comma = text.lastIndexOf(',', end - 1);
    // The leftmost hop of a cut header may itself be cut: never read it.
    if (comma < 0 && truncated) return undefined;
    const hop = parseHop(text, comma + 1, end);
    if (hop === undefined) return undefined;
    if (!trusted.matches(hop)) return hop;
    if (comma < 0) return hop;
    end = comma;
  }
  return undefined;
}
