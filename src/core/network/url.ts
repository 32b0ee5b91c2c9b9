/**
 * The one service-URL rule (N3): where this code may send a request, or what it
 * may name as a server (an issuer, a keys URL, the CLI's `--server`). `https`,
 * or plain `http` on a loopback host (see special.ts); never credentials in
 * the URL (they would travel, and be logged, with every request), never a
 * fragment (no server sees it, so a URL with one is not what it looks like).
 * Each caller adds its own shape (an origin only, no query) on top.
 * @module
 */
import { isLoopbackHost } from './special';

/** Longest URL read: every real issuer, keys or server URL is far shorter. */
const MAX_URL = 2048;
// Printable ASCII only: the WHATWG parser silently drops tabs and newlines and trims
// spaces, so text that held them is not the URL it turns into.
const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * `value` (text or a `URL`) as a service URL, or why it is not one, in words
 * that follow the name of what was given (`issuer: must not have a fragment`).
 *
 * @example
 * ```ts
 * serviceUrl('https://sso.example.com/realms/acme'); // URL
 * serviceUrl('http://127.0.0.1:8080');                // URL (loopback)
 * serviceUrl('http://sso.example.com');               // 'must use https unless its host is a loopback address'
 * serviceUrl('https://user:pw@sso.example.com');      // 'must not carry a user name or password'
 * ```
 */
export function serviceUrl(value: unknown): URL | string {
  const text = value instanceof URL ? value.href : value;
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_URL || !PRINTABLE.test(text)) {
    return `must be a URL of 1 to ${MAX_URL} printable characters without spaces`;
  }
  const url = URL.parse(text);
  if (url === null) return 'must be an absolute URL';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return 'must use https unless its host is a loopback address';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  // `https://x/#` parses with an empty hash: the text decides.
  if (text.includes('#')) return 'must not have a fragment';
  return url;
}
