/**
 * @internal What PostgreSQL can store as text: no NUL character (text and
 * jsonb refuse it, which would surface as a database error, a 503) and no lone
 * UTF-16 surrogate (the driver encodes it as U+FFFD, so the value read back
 * would differ from the one written). Such input is refused with a
 * `ValidationError` before it reaches the database, as the service does for
 * every store.
 * @module
 */
import { ValidationError, type IssueInput } from '../../../errors';
import type { Entry } from '../../record-codec';

/**
 * @internal Whether PostgreSQL stores `text` and returns it unchanged.
 *
 * @example
 * ```ts
 * storable('ci'); // true
 * storable('a\u0000b'); // false
 * ```
 */
export function storable(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one (code units: no `u` flag). */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * @internal Throw a `ValidationError` naming every field of `entry` (under
 * `path`) that PostgreSQL would refuse or change.
 *
 * @example
 * ```ts
 * checkStorable(toEntry(record, 'date', 'record'), 'record');
 * ```
 */
export function checkStorable(entry: Entry, path: string): void {
  const issues: IssueInput[] = [];
  const check = (value: unknown, at: string): void => {
    if (typeof value === 'string') {
      if (!storable(value)) issues.push({ path: `${path}.${at}`, message: 'must not contain NUL characters or lone surrogates' });
    } else if (Array.isArray(value)) {
      value.forEach((v: unknown, i) => check(v, `${at}[${i}]`));
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) check(v, `${at}.${k}`);
    }
  };
  for (const key of ['id', 'ownerId', 'name', 'description', 'parentId', 'committerIdentity', 'scopes'] as const) check(entry[key], key);
  if (issues.length > 0) throw new ValidationError(issues);
}

/**
 * @internal Check an `ids` argument (`revoke`, `touch`): an array of strings, else `ValidationError`.
 *
 * @example
 * ```ts
 * checkIds(['tok_1']);
 * ```
 */
export function checkIds(ids: unknown): asserts ids is readonly string[] {
  if (!Array.isArray(ids) || !ids.every((id: unknown) => typeof id === 'string')) {
    throw new ValidationError([{ path: 'ids', message: 'expected an array of strings' }]);
  }
}
