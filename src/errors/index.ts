/**
 * The one error family of svc-auth. Every failure the library reports is an
 * instance of {@link SvcAuthError} with a stable `code`, so callers branch on
 * `err.code` (or `instanceof`) and never on message text.
 *
 * This module sits beneath every layer: it imports nothing.
 * @module
 */

/** The closed set of error codes. New codes are a breaking change. */
export type ErrorCode =
  | 'validation'
  | 'authentication'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unavailable';

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

/** One problem found in an input, located by a dotted/indexed path such as `[0].permissions[1]`. */
export interface ValidationIssue {
  /** Where the problem is, e.g. `[2].resource` or `--scope[0]`; empty for the input as a whole. */
  path: string;
  /** What is wrong, for humans. */
  message: string;
}

/**
 * Input that breaks a rule. `issues` lists every problem found, not only the first.
 *
 * @example
 * ```ts
 * import { normalizeScopes, ValidationError } from 'svc-auth';
 * try { normalizeScopes([{ permissions: ['role:owner'] }]); }
 * catch (err) {
 *   if (err instanceof ValidationError) for (const i of err.issues) console.log(i.path, i.message);
 * }
 * ```
 */
export class ValidationError extends SvcAuthError {
  /** Every problem found. Never empty. */
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[] | string, options?: { cause?: unknown }) {
    const list: ValidationIssue[] =
      typeof issues === 'string' ? [{ path: '', message: issues }] : issues.map((i) => ({ path: i.path, message: i.message }));
    if (list.length === 0) list.push({ path: '', message: 'invalid input' });
    super('validation', formatIssues(list), options);
    this.issues = Object.freeze(list.map((i) => Object.freeze(i)));
  }
}

function formatIssues(issues: readonly ValidationIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return shown.join('; ') + more;
}

/** Why a credential was not accepted. */
export type AuthenticationReason =
  | 'missing'
  | 'malformed'
  | 'signature'
  | 'expired'
  | 'revoked'
  | 'unknown'
  | 'type';

/**
 * The credential is missing, malformed, forged, expired, revoked, unknown or of
 * the wrong kind. HTTP maps it to 401.
 *
 * @example
 * ```ts
 * import { AuthenticationError } from 'svc-auth';
 * try { await auth.authenticate(token); }
 * catch (err) { if (err instanceof AuthenticationError && err.reason === 'expired') renew(); }
 * ```
 */
export class AuthenticationError extends SvcAuthError {
  /** Which check failed. */
  readonly reason: AuthenticationReason;
  /**
   * The token's id (its JWT `jti`, never its value) when the signature verified
   * and the refusal came from its record (revoked, expired, unknown): lets a log
   * line or an audit event trace a revoked token that is still in use.
   */
  readonly tokenId?: string;

  constructor(reason: AuthenticationReason, message?: string, options?: { cause?: unknown; tokenId?: string }) {
    super('authentication', message ?? `authentication failed: ${reason}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options?.tokenId !== undefined) this.tokenId = options.tokenId;
  }
}

/**
 * The caller is known but may not do this. HTTP maps it to 403.
 *
 * @example
 * ```ts
 * import { ForbiddenError } from 'svc-auth';
 * if (err instanceof ForbiddenError) res.statusCode = 403;
 * ```
 */
export class ForbiddenError extends SvcAuthError {
  constructor(message = 'forbidden', options?: { cause?: unknown }) {
    super('forbidden', message, options);
  }
}

/**
 * Nothing of that name among what the caller may see. HTTP maps it to 404.
 *
 * @example
 * ```ts
 * import { NotFoundError } from 'svc-auth';
 * if (err instanceof NotFoundError) res.statusCode = 404;
 * ```
 */
export class NotFoundError extends SvcAuthError {
  constructor(message = 'not found', options?: { cause?: unknown }) {
    super('not_found', message, options);
  }
}

/**
 * The request clashes with existing state, such as an active token of the same name. HTTP maps it to 409.
 *
 * @example
 * ```ts
 * import { ConflictError } from 'svc-auth';
 * if (err instanceof ConflictError) console.error('pick another name');
 * ```
 */
export class ConflictError extends SvcAuthError {
  constructor(message = 'conflict', options?: { cause?: unknown }) {
    super('conflict', message, options);
  }
}

/**
 * A dependency (a store, a database) failed or timed out. The library fails
 * closed: nothing is allowed on this error. HTTP maps it to 503.
 *
 * @example
 * ```ts
 * import { UnavailableError } from 'svc-auth';
 * if (err instanceof UnavailableError) res.setHeader('Retry-After', '1');
 * ```
 */
export class UnavailableError extends SvcAuthError {
  constructor(message = 'service unavailable', options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}
