/**
 * Token values out of audit events. Events carry request input (the resource
 * and thing name of an `access.denied`, a token id given to `revokeToken`) and
 * names chosen by token creators, any of which can hold a token pasted where
 * it does not belong: `GET /api/repos/<PAT>/x/head` makes the PAT a resource.
 * Every string of an event goes through the redaction the logs use
 * (`redactTokens`) before the hook sees it.
 * @module
 */
import { redactTokens } from '../../tokens';

// Events are a few levels deep (event, actor or token, scopes, entry, list).
const MAX_DEPTH = 6;

/**
 * `text` with its token-shaped runs redacted. A string without `.`, `/` or `%`
 * is left alone: a token value is three segments joined by dots (or, as the
 * logs found, by `/`, or with its dots percent-escaped), so such a string holds
 * none. That spares the ids, names and kinds every event carries, and matters
 * for ids: a token id is 22 random base64url characters, one in 262 144 begins
 * with `eyJ`, and redacting it would lose the one thing an audit line is for.
 */
function redactText(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e || c === 0x2f || c === 0x25) return redactTokens(text);
  }
  return text;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null || value instanceof Date || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = redactValue(item, depth + 1);
      if (next !== item) (out ??= value.slice())[i] = next;
    }
    return out === undefined ? value : Object.freeze(out);
  }
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const next = redactValue(item, depth + 1);
    if (next !== item) (out ??= { ...(value as Record<string, unknown>) })[key] = next;
  }
  return out === undefined ? value : Object.freeze(out);
}

/**
 * `event` as the hook may see it: the same object when no string in it holds
 * anything token-shaped (the usual case: nothing is copied), else a frozen copy
 * with each such run replaced by `[redacted]`.
 *
 * @example
 * ```ts
 * redactEvent(deniedEvent).resource; // 'eyJ….eyJ….sig/x' -> '[redacted]x'
 * ```
 */
export function redactEvent<E extends object>(event: E): E {
  return redactValue(event, 0) as E;
}
