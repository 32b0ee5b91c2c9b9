/**
 * One place that keeps token values out of output (messages, logs): text is
 * matched by shape after percent-escapes are decoded, so a token whose dots
 * were sent as `%2E` (or `%252E`), or whose segments were joined with `/`,
 * is still found.
 * @module
 */

/** What a redacted token becomes. */
export const REDACTED = '[redacted]';

// A JWT segment holding JSON starts with base64url `eyJ` (`{"`). The header and
// the payload both do; what follows it, joined by `.` or `/`, is taken with it.
// Every quantified class is bounded by a character outside it, so no backtracking blow-up.
const TOKEN_SHAPE = /eyJ[A-Za-z0-9_-]{4,}(?:[./][A-Za-z0-9_-]{8,}){0,2}[./]?/g;
const ESCAPE = /%([0-9A-Fa-f]{2})/g;
const MAX_DECODE_ROUNDS = 3;

function decodeAsciiEscapes(text: string): string {
  // Only ASCII escapes: they are all a token can be spelt with, and decoding them never fails.
  return text.replace(ESCAPE, (whole, hex: string) => {
    const code = Number.parseInt(hex, 16);
    return code < 0x80 ? String.fromCharCode(code) : whole;
  });
}

/**
 * `text` with every token-shaped run replaced by `[redacted]`. When nothing is
 * token-shaped the text comes back unchanged; when something is, the result is
 * the percent-decoded text, redacted (so an escaped token cannot survive).
 *
 * @example
 * ```ts
 * import { redactTokens } from 'svc-auth/scanning';
 * redactTokens(`unknown command '${token}'`);        // "unknown command '[redacted]'"
 * redactTokens('/api/eyJhbGciOi%2EeyJzdWIi%2Esig…'); // '/api/[redacted]…'
 * ```
 */
export function redactTokens(text: string): string {
  if (typeof text !== 'string') return '';
  let decoded = text;
  for (let i = 0; i < MAX_DECODE_ROUNDS && decoded.includes('%'); i++) {
    const next = decodeAsciiEscapes(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  TOKEN_SHAPE.lastIndex = 0;
  if (!TOKEN_SHAPE.test(decoded)) return text;
  return decoded.replace(TOKEN_SHAPE, REDACTED);
}
