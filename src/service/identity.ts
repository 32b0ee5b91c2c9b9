/**
 * Committer identities (rule T9) and user ids.
 * @module
 */
import { ValidationError } from '../errors';
import { checkUserId as checkUserIdRule } from '../core/vocabulary';

/**
 * `svc:<namespace>/users/Identity/<id>`, segments `[A-Za-z0-9._-]+` (T9).
 * Prefer {@link isIdentityWref}, which also refuses `.` and `..` segments.
 *
 * @example
 * ```ts
 * IDENTITY_PATTERN.test('svc:acme/users/Identity/ci-bot'); // true
 * ```
 */
export const IDENTITY_PATTERN = /^svc:([A-Za-z0-9._-]+)\/users\/Identity\/([A-Za-z0-9._-]+)$/;

const SEGMENT = /^[A-Za-z0-9._-]+$/;
const MAX_IDENTITY_LENGTH = 512;

/**
 * Is `value` an identity wref of the form `svc:<namespace>/users/Identity/<id>`?
 *
 * @example
 * ```ts
 * isIdentityWref('svc:default/users/Identity/alice'); // true
 * isIdentityWref('svc:default/users/Identity/../x');  // false
 * ```
 */
export function isIdentityWref(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_IDENTITY_LENGTH) return false;
  const m = IDENTITY_PATTERN.exec(value);
  // `.` and `..` match the character class but would read as path steps.
  return m !== null && [m[1], m[2]].every((s) => s !== '.' && s !== '..');
}

/**
 * Check an identity wref, throwing `ValidationError` at `path` when it breaks T9.
 *
 * @example
 * ```ts
 * checkIdentity('svc:acme/users/Identity/ci-bot', 'committerIdentity'); // returns it
 * ```
 */
export function checkIdentity(value: unknown, path: string): string {
  if (!isIdentityWref(value)) {
    throw new ValidationError([{ path, message: 'must be an identity wref svc:<namespace>/users/Identity/<id> (letters, digits, . _ -)' }]);
  }
  return value;
}

/**
 * Can `userId` stand as the last segment of the default identity
 * `svc:default/users/Identity/<userId>`?
 *
 * @example
 * ```ts
 * isIdentitySegment('alice');           // true
 * isIdentitySegment('alice@example');   // false
 * ```
 */
export function isIdentitySegment(userId: string): boolean {
  return SEGMENT.test(userId) && userId !== '.' && userId !== '..';
}

/**
 * The default committer identity of a user (T9).
 *
 * @example
 * ```ts
 * defaultIdentity('alice'); // 'svc:default/users/Identity/alice'
 * ```
 */
export function defaultIdentity(userId: string): string {
  return `svc:default/users/Identity/${userId}`;
}

/**
 * Check a user id given to `issueSession`/`issueComponentToken`: 1 to 256
 * characters, no whitespace or control characters. Without a custom
 * `identityOf` it must also fit an identity segment (`[A-Za-z0-9._-]`), so that
 * the default identity is always well-formed: we refuse rather than encode,
 * because an encoding could make two users' identities collide.
 *
 * @example
 * ```ts
 * checkUserId('alice', true); // 'alice'
 * checkUserId('a b', false);  // throws ValidationError
 * ```
 */
export function checkUserId(userId: unknown, needsSegment: boolean): string {
  const id = checkUserIdRule(userId);
  if (needsSegment && !isIdentitySegment(id)) {
    throw new ValidationError([
      {
        path: 'userId',
        message: 'must use only letters, digits, . _ - unless createAuth is given identityOf (it forms the default identity)',
      },
    ]);
  }
  return id;
}
