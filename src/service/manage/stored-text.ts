/**
 * User-supplied free text that reaches a token store (a description, a user
 * id) is checked once here, the same for every store: a NUL passed validation
 * and then failed in PostgreSQL (503 instead of 400), and a lone surrogate was
 * stored as U+FFFD by PostgreSQL but kept as sent by the memory and file
 * stores. Both are refused up front with a `ValidationError`.
 * @module
 */
import { ValidationError } from '../../errors';

// C0 controls but tab and line feed, DEL and C1 controls.
const CONTROL_BUT_TAB_LF = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Is `text` well-formed UTF-16 (no lone surrogate), so that every store keeps
 * exactly what was sent?
 *
 * @example
 * ```ts
 * isWellFormedText('café 😀'); // true
 * isWellFormedText('\ud800');  // false
 * ```
 */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * Check free text for a store: no lone surrogates and no control characters
 * (tab and line feed allowed when `multiline`). Returns the text unchanged.
 *
 * @throws ValidationError at `path`.
 * @example
 * ```ts
 * checkStoredText('deploys the docs site', 'description', true); // returned as is
 * checkStoredText('a\u0000b', 'description', true);              // throws ValidationError
 * ```
 */
export function checkStoredText(text: string, path: string, multiline: boolean): string {
  if (!isWellFormedText(text)) throw new ValidationError([{ path, message: 'must be valid Unicode text (no lone surrogate)' }]);
  const control = multiline ? CONTROL_BUT_TAB_LF : /[\u0000-\u001f\u007f-\u009f]/;
  if (control.test(text)) {
    throw new ValidationError([
      {
        path,
        message: multiline ? 'must not contain control characters other than tab and line feed' : 'must not contain control characters',
      },
    ]);
  }
  return text;
}
