/**
 * What the scope parsers share to describe where and what a problem is: the
 * bounded issue list, issue paths, safe previews of hostile values, and the
 * guard that turns anything thrown while reading input into a typed error.
 * Internal: not re-exported from the layer.
 * @module
 */
import { SvcAuthError, ValidationError, type IssueCode, type IssueInput } from '../../errors';

/**
 * @internal Most issues one ValidationError carries; past it a summary issue says how many more.
 *
 * @example
 * ```ts
 * err.issues.length <= MAX_ISSUES + 1; // true
 * ```
 */
export const MAX_ISSUES = 100;

/**
 * @internal Collects issues so that every problem is reported at once, bounded
 * so that hostile input (a huge array of bad items) cannot make a huge error.
 *
 * @example
 * ```ts
 * const issues = new IssueList();
 * issues.add('[0].resource', 'must be a string');
 * issues.throwIfAny(); // throws ValidationError with one issue
 * ```
 */
export class IssueList {
  private readonly list: IssueInput[] = [];
  private dropped = 0;

  /** Record one problem. */
  add(path: string | readonly (string | number)[], message: string, code?: IssueCode): void {
    if (this.list.length < MAX_ISSUES) this.list.push(code === undefined ? { path, message } : { code, path, message });
    else this.dropped++;
  }

  /** How many problems were recorded (including dropped ones). */
  get size(): number {
    return this.list.length + this.dropped;
  }

  /** Throw one ValidationError holding every recorded problem, if any. */
  throwIfAny(): void {
    if (this.size === 0) return;
    const issues = this.list.slice();
    if (this.dropped > 0) issues.push({ path: '', message: `and ${this.dropped} more problems` });
    throw new ValidationError(issues);
  }
}

/**
 * @internal Run `fn`, turning anything that is not an SvcAuthError (a throwing
 * getter or Proxy trap, a stack overflow) into a ValidationError: bad input
 * never escapes as a raw TypeError or RangeError.
 *
 * @example
 * ```ts
 * guardInput('scopes', () => readEntries(input));
 * ```
 */
export function guardInput<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SvcAuthError) throw err;
    throw new ValidationError([{ path: '', message: `${what} could not be read` }], { cause: err });
  }
}

/**
 * @internal Own-property test that ignores anything inherited (a polluted Object.prototype included).
 *
 * @example
 * ```ts
 * own(Object.create({ resource: 'x' }), 'resource'); // false
 * ```
 */
export function own(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * @internal Render a path such as `[0].permissions[1]`; odd keys are quoted and shortened.
 *
 * @example
 * ```ts
 * formatPath([0, 'permissions', 1]); // '[0].permissions[1]'
 * ```
 */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (typeof s === 'string' && IDENT.test(s) && s.length <= 40) out += out === '' ? s : `.${s}`;
    else out += `[${preview(String(s))}]`;
  }
  return out;
}

/**
 * @internal A short, quoted, escaped rendering of a user string for messages:
 * control and invisible characters become visible escapes, long text is cut.
 *
 * @example
 * ```ts
 * preview('repo:re\u200bad'); // '"repo:re\\u200bad"'
 * ```
 */
export function preview(text: string, max = 40): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(cut).replace(
    /[\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * @internal What kind of value this is, for "expected X, got Y" messages; never echoes an object's content.
 *
 * @example
 * ```ts
 * describe(null); // 'null'
 * ```
 */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${preview(value)}`;
  if (typeof value === 'object') return 'an object';
  return typeof value;
}
