/**
 * The one error family of svc-auth. Every failure the library reports is an
 * instance of {@link SvcAuthError} with a stable `code`, so callers branch on
 * `err.code` (or `instanceof`) and never on message text.
 *
 * This module sits beneath every layer: it imports nothing.
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

/**
 * What kind of problem an issue is, as zod names them: the wrong type, a value outside the allowed
 * set, a key the shape does not have, too long or too many, too short or empty, something listed
 * twice, or a rule of its own (`custom`).
 */
export type IssueCode = 'invalid_type' | 'invalid_value' | 'unrecognized_keys' | 'too_big' | 'too_small' | 'duplicate' | 'custom';

/** Where an issue is: property names and array indexes from the input's root, e.g. `[0, 'permissions', 1]`. */
export type IssuePath = (string | number)[];

/**
 * One problem found in an input, shaped like a zod issue: `{ code, path, message }`. The same bad
 * input gets the same path from every function that checks it; `pathText` is that path formatted
 * for people (`[0].permissions[1]`).
 *
 * @example
 * ```ts
 * import { normalizeScopes, ValidationError } from 'svc-auth';
 * try { normalizeScopes([{ permissions: ['repo:read'], resourse: 'acme' }] as never); }
 * catch (err) {
 *   if (err instanceof ValidationError) err.issues[0]?.path; // [0, 'resourse']
 * }
 * ```
 */
export interface ValidationIssue {
  /** What kind of problem this is. */
  readonly code: IssueCode;
  /** Where it is, from the input's root; empty for the input as a whole. */
  readonly path: readonly (string | number)[];
  /** `path` formatted for messages: `[2].resource`, `--scope[0]`; empty for the input as a whole. */
  readonly pathText: string;
  /** What is wrong, for humans. */
  readonly message: string;
}

/**
 * An issue as code inside the library reports it: `path` as segments, or as text in the form
 * `pathText` has (it is split into segments); `code` defaults to `custom`.
 */
export interface IssueInput {
  code?: IssueCode;
  path: string | readonly (string | number)[];
  message: string;
}

const IDENT = /^[A-Za-z_$-][A-Za-z0-9_$-]*$/;

/**
 * Format a path for people: `[0, 'permissions', 1]` is `[0].permissions[1]`; a key that is not a
 * plain name is quoted and cut to 40 characters (`[0]["a b"]`), so a hostile key cannot flood a message.
 *
 * @example
 * ```ts
 * import { formatIssuePath } from 'svc-auth';
 * formatIssuePath([0, 'permissions', 1]); // '[0].permissions[1]'
 * ```
 */
export function formatIssuePath(path: readonly (string | number)[]): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (IDENT.test(s) && s.length <= 40) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s)}]`;
  }
  return out;
}

const SEGMENT = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/gy;

/** Split text in the form {@link formatIssuePath} writes back into segments; text it cannot read stays one segment. */
function parseIssuePath(text: string): IssuePath {
  const out: IssuePath = [];
  SEGMENT.lastIndex = 0;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < text.length && (m = SEGMENT.exec(text)) !== null) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(String(JSON.parse(m[2])));
    else out.push(m[3] ?? '');
    at = SEGMENT.lastIndex;
  }
  return at === text.length ? out : [text];
}

function toIssue(i: IssueInput): ValidationIssue {
  const raw = i.path;
  let path: IssuePath;
  let pathText: string;
  if (typeof raw !== 'string') {
    path = raw.map((s) => (typeof s === 'number' ? s : String(s)));
    pathText = formatIssuePath(path);
  } else {
    path = parseIssuePath(raw);
    // Text that is not a path of short names (a whole token pasted as a key) stays as given, in one
    // segment: cutting it would hide it from the redaction that runs on messages (H2).
    const plain = path.every((s) => typeof s === 'number' || s.length <= 40);
    if (!plain) path = [raw];
    pathText = plain ? formatIssuePath(path) : raw;
  }
  return Object.freeze({ code: i.code ?? 'custom', path: Object.freeze(path), pathText, message: i.message });
}

/**
 * Input that breaks a rule. `issues` lists every problem found, not only the first.
 *
 * @example
 * ```ts
 * import { normalizeScopes, ValidationError } from 'svc-auth';
 * try { normalizeScopes([{ permissions: ['role:owner'] }]); }
 * catch (err) {
 *   if (err instanceof ValidationError) for (const i of err.issues) console.log(i.code, i.pathText, i.message);
 * }
 * ```
 */
export class ValidationError extends SvcAuthError {
  /** Every problem found. Never empty. */
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly IssueInput[] | string, options?: { cause?: unknown }) {
    const list: ValidationIssue[] = typeof issues === 'string' ? [toIssue({ path: [], message: issues })] : issues.map(toIssue);
    if (list.length === 0) list.push(toIssue({ path: [], message: 'invalid input' }));
    super('validation', formatIssues(list), options);
    this.issues = Object.freeze(list);
  }
}

function formatIssues(issues: readonly ValidationIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => (i.pathText ? `${i.pathText}: ${i.message}` : i.message));
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return shown.join('; ') + more;
}

/**
 * Why a credential was not accepted. The last five come from tokens of a trusted
 * issuer (an identity provider, `trustedIssuers`): `issuer` (its `iss` is no issuer
 * this service trusts), `audience` (its `aud` does not name this service),
 * `not_yet_valid` (`nbf` in the future), `algorithm` (an algorithm that issuer may not
 * use: `none`, HMAC, one outside its list) and `key` (a `kid` the issuer does not
 * publish, even after its keys were fetched again). The set is closed: new reasons are added, never renamed.
 */
export type AuthenticationReason =
  | 'missing'
  | 'malformed'
  | 'signature'
  | 'expired'
  | 'revoked'
  | 'unknown'
  | 'type'
  | 'issuer'
  | 'audience'
  | 'not_yet_valid'
  | 'algorithm'
  | 'key'
  | 'dpop' // RFC 9449: a bad, stale, replayed or foreign DPoP proof
  | 'bound'; // a key-bound token as Bearer, or an unbound one with the DPoP scheme

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
    super(
      'authentication',
      message ?? `authentication failed: ${reason}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = reason;
    if (options?.tokenId !== undefined) this.tokenId = options.tokenId;
  }
}

/**
 * Why a valid credential was refused outright: `ip`, the token may not be used from the request's address (its
 * `allowedIps`, or an ancestor's, do not hold it, or it is not known); `policy`, an org's policy refuses it there (G2).
 */
export type ForbiddenReason = 'ip' | 'policy';

/**
 * The caller is known but may not do this. HTTP maps it to 403.
 *
 * `authenticate` throws it with `reason: 'ip'` and the token's id when a valid token is used
 * from an address its `allowedIps` do not hold: the credential is genuine, so not a 401.
 *
 * @example
 * ```ts
 * import { ForbiddenError } from 'svc-auth';
 * if (err instanceof ForbiddenError) res.statusCode = 403;
 * if (err instanceof ForbiddenError && err.reason === 'ip') console.warn('token', err.tokenId, 'used from elsewhere');
 * ```
 */
export class ForbiddenError extends SvcAuthError {
  /** Set when the refusal is one of the fixed kinds of {@link ForbiddenReason}. */
  readonly reason?: ForbiddenReason;
  /** The refused token's id (its JWT `jti`, never its value), when the refusal is about a token. */
  readonly tokenId?: string;

  constructor(message = 'forbidden', options?: { cause?: unknown; reason?: ForbiddenReason; tokenId?: string }) {
    super('forbidden', message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.reason !== undefined) this.reason = options.reason;
    if (options?.tokenId !== undefined) this.tokenId = options.tokenId;
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
