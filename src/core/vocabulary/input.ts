/**
 * The few input checks every layer shares, kept once, beneath every layer: what a plain object is,
 * which keys an options object may have, and what a user id is.
 * @module
 */
import { ValidationError, type IssueInput } from '../../errors';
import { SERVICE_ACCOUNT_PREFIX } from './service-accounts';

/**
 * @internal An object literal or a null-prototype object: not an array, Date, Map, Proxy-less class instance.
 *
 * @example
 * ```ts
 * isPlainObject({}); // true
 * isPlainObject([]); // false
 * ```
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * @internal Report every own key of the options object `value` that is not in `knownKeys` (symbol
 * keys included) as an `unrecognized_keys` issue at `<path>.<key>` (at `<key>` when `path` is
 * empty), so that a misspelt option fails when the object is built instead of being ignored.
 * Returns whether every key was known.
 *
 * @example
 * ```ts
 * const issues: IssueInput[] = [];
 * checkOptions({ realm: 'svc', optinal: true }, ['realm', 'optional'], 'options', issues); // false
 * issues; // [{ code: 'unrecognized_keys', path: ['options', 'optinal'], message: 'unknown option' }]
 * ```
 */
export function checkOptions(
  value: object,
  knownKeys: ReadonlySet<string> | readonly string[],
  path: string,
  issues: IssueInput[],
): boolean {
  const known = knownKeys instanceof Set ? knownKeys : new Set(knownKeys as readonly string[]);
  let ok = true;
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key === 'string' && known.has(key)) continue;
    ok = false;
    // Keys come from callers, maybe hostile: a long one is cut in the issue path.
    const name = typeof key === 'string' ? key.slice(0, 64) : String(key).slice(0, 64);
    issues.push({ code: 'unrecognized_keys', path: path === '' ? [name] : [path, name], message: 'unknown option' });
  }
  return ok;
}

/** Longest user id, in UTF-16 code units. */
export const MAX_USER_ID_LENGTH = 256;

// Whitespace, C0/C1 controls and invisible characters: a user id is printed by the CLI, compared by
// eye in logs, and forms the default committer identity.
const BAD_USER_ID_CHAR = /[\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]/;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * @internal The one user-id rule, for memberships, sessions, component tokens and token owners
 * alike (so a member can always get a session): 1 to 256 characters, no whitespace, control or
 * invisible characters. Throws `ValidationError` at `path`.
 *
 * @example
 * ```ts
 * checkUserId('alice'); // 'alice'
 * checkUserId('a b');   // throws ValidationError
 * ```
 */
export function checkUserId(userId: unknown, path = 'userId'): string {
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > MAX_USER_ID_LENGTH) {
    throw new ValidationError([{ code: 'invalid_type', path, message: `must be a string of 1 to ${MAX_USER_ID_LENGTH} characters` }]);
  }
  if (BAD_USER_ID_CHAR.test(userId)) {
    throw new ValidationError([{ code: 'invalid_value', path, message: 'must not contain whitespace, control or invisible characters' }]);
  }
  // A lone surrogate is kept by some stores and turned into U+FFFD by PostgreSQL: refused for every store.
  if (LONE_SURROGATE.test(userId)) {
    throw new ValidationError([{ code: 'invalid_value', path, message: 'must be valid Unicode text (no lone surrogate)' }]);
  }
  // W1: the form of a service account id; a user taking it could borrow an account's roles.
  if (userId.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    throw new ValidationError([
      {
        code: 'invalid_value',
        path,
        message: `must not begin with '${SERVICE_ACCOUNT_PREFIX}' (reserved for service accounts, sa:<org>/<name>)`,
      },
    ]);
  }
  return userId;
}
