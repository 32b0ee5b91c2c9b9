/**
 * The base of the error family: its closed set of codes and the class every error extends.
 * @module
 */

/** The closed set of error codes. New codes are a breaking change. */
export type ErrorCode = 'validation' | 'authentication' | 'forbidden' | 'not_found' | 'conflict' | 'unavailable';

/**
 * Base class of every error svc-auth throws.
 *
 * @example
 * ```ts
 * import { SvcAuthError } from 'svc-auth';
 * try { await auth.authenticate(token); }
 * catch (err) { if (err instanceof SvcAuthError) console.log(err.code); }
 * ```
 */
export class SvcAuthError extends Error {
  /** Stable, machine-readable code. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    // Subclasses set their own name; keeps `err.name` useful in logs.
    this.name = new.target.name;
  }
}
