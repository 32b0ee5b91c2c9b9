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
 * import { TOKEN_PREFIX } from 'svc-auth';
 * if (line.includes(TOKEN_PREFIX)) console.warn('possible leaked svc token');
 * ```
 */
export const TOKEN_PREFIX = 'eyJ0eXAiOiJzdmMtcGF0K2p3dCIs';

// Signatures are 43 (HS256) or 86 (EdDSA, ES256) base64url characters. The
// look-arounds make a match a whole token: not a piece of a longer run of
// base64url text, nor three segments cut out of a longer dotted chain. Each
// quantified class is bounded by a literal '.', so matching cannot backtrack badly.
const SOURCE =
  String.raw`(?<![A-Za-z0-9_-]|[A-Za-z0-9_-]\.)` +
  TOKEN_PREFIX +
  String.raw`[A-Za-z0-9_-]{8,2048}\.[A-Za-z0-9_-]{16,4096}\.(?:[A-Za-z0-9_-]{86}|[A-Za-z0-9_-]{43})` +
  String.raw`(?![A-Za-z0-9_-]|\.[A-Za-z0-9_-])`;

/**
 * A global regular expression that finds whole svc-auth PATs in arbitrary text
 * (logs, commits, chat), for secret scanners. It matches PATs only: not sessions,
 * not component tokens, not other JWTs. It is global, so reset `lastIndex` (or use
 * `String.prototype.matchAll`) between uses.
 *
 * @example
 * ```ts
 * import { TOKEN_PATTERN } from 'svc-auth';
 * const leaked = [...text.matchAll(TOKEN_PATTERN)].map((m) => m.index);
 * ```
 */
export const TOKEN_PATTERN = new RegExp(SOURCE, 'g');
