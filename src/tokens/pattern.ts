/**
 * Secret scanning (T1): every PAT begins with the base64url of `{"typ":"svc-pat+jwt",`
 * because the header is written with `typ` first. 21 bytes encode to exactly 28
 * characters, so the prefix does not depend on what follows.
 * @module
 */

/**
 * The text every PAT starts with: base64url of `{"typ":"svc-pat+jwt",`.
 * Sessions and component tokens start differently.
 *
 * @example
 * ```ts
 * import { TOKEN_PREFIX } from 'svc-auth/scanning';
 * if (line.includes(TOKEN_PREFIX)) console.warn('possible leaked svc token');
 * ```
 */
export const TOKEN_PREFIX = 'eyJ0eXAiOiJzdmMtcGF0K2p3dCIs';

// Signatures are 43 (HS256) or 86 (EdDSA, ES256) base64url characters. The
// look-arounds make a match a whole token, not a piece of a longer run of
// base64url text. A '.' beside the token does not extend it: a PAT is found in
// `leaked.json`-style names (`<pat>.json`) and after a dotted prefix (`x.<pat>`),
// because the prefix itself marks where a PAT starts. Each quantified class is
// bounded by a literal '.', so matching cannot backtrack badly.
const SOURCE =
  String.raw`(?<![A-Za-z0-9_-])` +
  TOKEN_PREFIX +
  String.raw`[A-Za-z0-9_-]{8,2048}\.[A-Za-z0-9_-]{16,4096}\.(?:[A-Za-z0-9_-]{86}|[A-Za-z0-9_-]{43})` +
  String.raw`(?![A-Za-z0-9_-])`;

/**
 * A regular expression that matches a whole svc-auth PAT in arbitrary text
 * (logs, commits, chat), for secret scanners. It matches PATs only: not
 * sessions, not component tokens, not other JWTs. It has no `g` or `y` flag,
 * so `TOKEN_PATTERN.test(text)` gives the same answer every time it is called;
 * use {@link findTokens} to list every token in a text.
 *
 * @example
 * ```ts
 * import { TOKEN_PATTERN } from 'svc-auth';
 * if (TOKEN_PATTERN.test(logLine)) console.warn('a log line holds an svc-auth PAT');
 * ```
 */
export const TOKEN_PATTERN = new RegExp(SOURCE);

// A private global copy for scanning: a shared global RegExp keeps `lastIndex`
// between calls, which is the very bug TOKEN_PATTERN no longer has.
const SCAN_SOURCE = SOURCE;

/**
 * Every svc-auth PAT in `text`, in order of appearance (repeats included).
 * Safe to call any number of times: it holds no state between calls.
 *
 * @returns the tokens found; `[]` when there are none or `text` is not a string.
 *
 * @example
 * ```ts
 * import { findTokens } from 'svc-auth/scanning';
 * const leaked = findTokens(logText);
 * // Never print the values: count them, then authenticate each to learn which token to revoke.
 * if (leaked.length > 0) console.warn(`${leaked.length} svc-auth PAT(s) in this log`);
 * ```
 */
export function findTokens(text: string): string[] {
  if (typeof text !== 'string' || !text.includes(TOKEN_PREFIX)) return [];
  return Array.from(text.matchAll(new RegExp(SCAN_SOURCE, 'g')), (m) => m[0]);
}
