/**
 * Option checks both leak endpoints share, run once when a handler is built.
 * @module
 */
import { ValidationError } from '../errors';
import { isAuth, type Auth } from '../service';

const SOURCE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** @internal the `reportLeaked` of `auth`, bound; `ValidationError` when `auth` is not what `createAuth` returned. */
export function checkAuth(auth: unknown, path: string): Auth['reportLeaked'] {
  if (!isAuth(auth)) throw new ValidationError([{ path, message: 'expected the object createAuth returned' }]);
  return (tokens, options) => auth.reportLeaked(tokens, options);
}

/** @internal a `source` option (as `reportLeaked` takes it), or `fallback`. */
export function checkSource(value: unknown, fallback: string, path: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !SOURCE.test(value)) {
    throw new ValidationError([{ path, message: 'must be 1 to 64 characters from [A-Za-z0-9._:-], starting with a letter or digit' }]);
  }
  return value;
}

/** @internal an optional function option. */
export function checkFunction(value: unknown, path: string): void {
  if (value !== undefined && typeof value !== 'function') throw new ValidationError([{ path, message: 'must be a function' }]);
}
