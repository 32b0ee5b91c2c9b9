/**
 * Node.js file-system failures as the library's errors: the system error code
 * is named, file contents never are.
 * @module
 */
import { UnavailableError } from '../../errors';

/**
 * @internal The `code` of a Node.js system error, if any.
 *
 * @example
 * ```ts
 * codeOf(err) === 'ENOENT';
 * ```
 */
export function codeOf(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * @internal An `UnavailableError` for a failed file operation; names the system error code, never file contents.
 *
 * @example
 * ```ts
 * throw fsError('cannot read /x/tokens.json', err);
 * ```
 */
export function fsError(what: string, err: unknown): UnavailableError {
  const code = codeOf(err);
  return new UnavailableError(code ? `${what}: ${code}` : what, { cause: err });
}
