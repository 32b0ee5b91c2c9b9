/**
 * Where a request came from, as `authenticate` needs it: the client address
 * (for `allowedIps` and the last-used addresses) and the user agent (for the
 * last-used record). Read only when needed: a request whose token has no
 * `allowedIps` and whose last use was recorded less than an interval ago
 * reads neither, so the hot path pays nothing for them.
 *
 * The address of a request is its connection's peer (`req.socket` on node;
 * for a fetch `Request`, which carries none, the address its adapter hands
 * over), and behind the proxies of `trustProxy` the client those proxies
 * name in `X-Forwarded-For` (core/network). A header from any other peer is
 * ignored. An address given to `authenticate` itself is taken as it is: the
 * caller has already decided it.
 * @module
 */
import { clientAddress, formatAddress, parseAddress, type IpAddress, type RangeMatcher } from '../../../core/network';
import { MAX_USER_AGENT } from '../../../stores';
import type { BearerRequest } from '../../../tokens';

/** Read one header of a fetch or node request as text; a repeated node header is joined as node joins it. */
function header(req: BearerRequest, name: string): string | undefined {
  const headers: unknown = (req as { headers?: unknown }).headers;
  if (typeof headers !== 'object' || headers === null) return undefined;
  const get: unknown = (headers as { get?: unknown }).get;
  const value: unknown = typeof get === 'function' ? get.call(headers, name) : (headers as Record<string, unknown>)[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  return undefined;
}

/**
 * @internal The client address, or `undefined` when it is not known: without
 * a request, `address` as given; with one, its peer (`address` when handed
 * over, else the node socket's) and, behind the proxies of `trust`, the client
 * they name. Never throws: a hostile request object is an unknown address.
 *
 * @example
 * ```ts
 * addressOf(req, undefined, trustProxy); // the socket peer, or the client behind a trusted proxy
 * addressOf(undefined, '203.0.113.7', trustProxy); // as given to authenticate
 * ```
 */
export function addressOf(req: BearerRequest | undefined, address: unknown, trust: RangeMatcher | null): IpAddress | undefined {
  try {
    if (req === undefined) return parseAddress(address, true);
    const peer = address !== undefined ? address : (req as { socket?: { remoteAddress?: unknown } }).socket?.remoteAddress;
    return clientAddress(peer, trust === null ? undefined : header(req, 'x-forwarded-for'), trust);
  } catch {
    return undefined;
  }
}

/**
 * @internal {@link addressOf} as canonical text, or `null`.
 *
 * @example
 * ```ts
 * addressText(addressOf(source, trust)); // '203.0.113.7'
 * ```
 */
export function addressText(a: IpAddress | undefined): string | null {
  return a === undefined ? null : formatAddress(a);
}

// C0 and C1 controls and DEL: never kept, so that nothing stored can drive a terminal.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * @internal A user agent as it is kept: text only, control characters and
 * lone surrogates removed, spaces at the ends trimmed, cut to 256 characters
 * (a cut never leaves half a surrogate pair); `null` when nothing is left.
 *
 * @example
 * ```ts
 * cleanUserAgent('curl/8.5.0\r\nX-Evil: 1'); // 'curl/8.5.0X-Evil: 1'
 * ```
 */
export function cleanUserAgent(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '') return null;
  // Cut long input first: the cleaning below is then bounded whatever arrived.
  let text = raw.length > 4 * MAX_USER_AGENT ? raw.slice(0, 4 * MAX_USER_AGENT) : raw;
  text = text.replace(CONTROLS, '').replace(LONE_SURROGATES, '').trim();
  if (text.length > MAX_USER_AGENT) {
    text = text.slice(0, MAX_USER_AGENT);
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  }
  return text === '' ? null : text;
}

/**
 * @internal The user agent: the request's header, or, without a request, what was given. Never throws.
 *
 * @example
 * ```ts
 * userAgentOf(req, undefined); // 'curl/8.5.0'
 * ```
 */
export function userAgentOf(req: BearerRequest | undefined, given: unknown): string | null {
  try {
    return cleanUserAgent(req === undefined ? given : header(req, 'user-agent'));
  } catch {
    return null;
  }
}
