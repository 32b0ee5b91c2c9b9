/**
 * Bad input, collected as data (zod's way): each problem an issue with a code and a path, thrown once
 * as one `ValidationError`.
 * @module
 */
import { SvcAuthError } from './base';

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
