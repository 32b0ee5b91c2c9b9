/**
 * One bounded GET of a client metadata document (rule N5). The address is checked where
 * the connection is made (a `lookup` hook on node:http(s)), not on a name
 * resolved earlier, so a DNS answer that changes between check and connect
 * (rebinding) cannot slip through; every answer is checked, not only the first.
 * No redirect is followed, the body is cut at `maxBytes`, and the whole
 * exchange has one deadline.
 * @module
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isLoopbackAddress, isPublicAddress, parseAddress } from '../../core/network';

/** @internal why a fetch failed, in words safe to show a user (no address, no body). */
export class FetchRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** @internal the limits of one fetch. */
export interface FetchLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly allowLoopback: boolean;
}

/** @internal what came back: the body text and how long it may be cached (seconds, from Cache-Control max-age). */
export interface Fetched {
  readonly text: string;
  readonly maxAgeSec: number | undefined;
}

/**
 * May a document be fetched from `address` (as DNS answered it, or written in the URL)? A public
 * address, or loopback when `allowLoopback` (a dev instance); the table is core/network's.
 */
function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  return isLoopbackAddress(address) ? allowLoopback : isPublicAddress(address);
}

/** A `lookup` for node:net that answers only allowed addresses and fails the connection otherwise. */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      // One refused answer refuses the name: a hostile zone may mix a public and a private address.
      if (addresses.length === 0 || !addresses.every((a) => isAllowedAddress(a.address, allowLoopback))) {
        return callback(new FetchRefused('the host resolves to an address that is not allowed'), '', 0);
      }
      if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/**
 * @internal GET `url` (already checked: http(s), no credentials, no fragment)
 * within `limits`. Rejects with {@link FetchRefused} on every failure.
 */
export function fetchDocument(url: URL, limits: FetchLimits): Promise<Fetched> {
  return new Promise<Fetched>((resolve, reject) => {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    // An address literal is never looked up: check it here.
    if (parseAddress(host) !== undefined && !isAllowedAddress(host, limits.allowLoopback)) {
      reject(new FetchRefused('the address is not allowed'));
      return;
    }
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const fail = (reason: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new FetchRefused(reason));
    };
    const req = request(url, {
      method: 'GET',
      agent: false,
      lookup: guardedLookup(limits.allowLoopback),
      headers: { accept: 'application/json', 'user-agent': 'svc-auth' },
      maxHeaderSize: 16 * 1024,
    });
    const timer = setTimeout(() => fail('the document did not arrive in time'), limits.timeoutMs);
    req.on('error', (err) => fail(err instanceof FetchRefused ? err.reason : 'the document could not be fetched'));
    req.on('response', (res: IncomingMessage) => {
      if (res.statusCode !== 200) return fail(`the document answered HTTP ${res.statusCode ?? 0} (redirects are not followed)`);
      const type = String(res.headers['content-type'] ?? '').toLowerCase();
      if (!/^application\/(?:[a-z0-9.+-]+\+)?json\b/.test(type)) return fail('the document is not served as JSON');
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBytes) return fail('the document is too large');
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) return fail('the document is too large');
        chunks.push(chunk);
      });
      res.on('error', () => fail('the document could not be read'));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ text: Buffer.concat(chunks, size).toString('utf8'), maxAgeSec: maxAgeOf(res.headers['cache-control']) });
      });
    });
    req.end();
  });
}

function maxAgeOf(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  if (/(?:^|,)\s*no-(?:store|cache)\b/i.test(header)) return 0;
  const m = /(?:^|,)\s*max-age\s*=\s*(\d{1,10})\b/i.exec(header);
  return m === null ? undefined : Number(m[1]);
}
