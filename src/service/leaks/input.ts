/**
 * The input of `auth.reportLeaked`, checked before anything is verified: the
 * list (at most 1 000 strings, read once, so a Proxy or a getter cannot change
 * it between the check and the use) and the options.
 * @module
 */
import { ValidationError, type IssueInput } from '../../errors';
import { checkOptions } from '../../core/vocabulary';

/** Most strings one call takes (as GitHub's own credential revocation API). */
export const MAX_REPORTED = 1_000;
const MAX_URL = 2_048;
const SOURCE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
// C0 and C1 controls, and the line separators a log line could be split on.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// A hostile list gets a few issues, not one per element.
const MAX_ISSUES = 10;

/** @internal the checked input of one call. */
export interface LeakInput {
  readonly tokens: readonly string[];
  readonly source: string;
  readonly url: string | null;
}

function readList(tokens: unknown, issues: IssueInput[]): string[] {
  if (!Array.isArray(tokens)) {
    issues.push({ code: 'invalid_type', path: 'tokens', message: 'must be an array of strings' });
    return [];
  }
  const length = tokens.length;
  if (length > MAX_REPORTED) {
    issues.push({ code: 'too_big', path: 'tokens', message: `holds ${length} strings; at most ${MAX_REPORTED} per call` });
    return [];
  }
  const out: string[] = [];
  let bad = 0;
  for (let i = 0; i < length; i++) {
    const t: unknown = tokens[i];
    if (typeof t === 'string') out.push(t);
    else if (bad++ < MAX_ISSUES) issues.push({ code: 'invalid_type', path: ['tokens', i], message: 'must be a string' });
  }
  return out;
}

/**
 * @internal Check the arguments of `reportLeaked`.
 * @throws ValidationError listing every problem (a list that cannot be read included).
 *
 * @example
 * ```ts
 * const { tokens, source, url } = checkLeakInput(['eyJ…'], { source: 'http' });
 * ```
 */
export function checkLeakInput(tokens: unknown, options: unknown): LeakInput {
  const issues: IssueInput[] = [];
  let list: string[];
  let source: unknown;
  let url: unknown;
  try {
    list = readList(tokens, issues);
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      issues.push({ code: 'invalid_type', path: 'options', message: 'must be an object { source, url? }' });
    } else {
      checkOptions(options, ['source', 'url'], 'options', issues);
      ({ source, url } = options as { source?: unknown; url?: unknown });
    }
  } catch (err) {
    throw new ValidationError([{ path: '', message: 'the arguments could not be read' }], { cause: err });
  }
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) {
    if (typeof source !== 'string' || !SOURCE.test(source)) {
      issues.push({ path: 'options.source', message: 'must be 1 to 64 characters from [A-Za-z0-9._:-], starting with a letter or digit' });
    }
    if (url !== undefined && (typeof url !== 'string' || url.length > MAX_URL || CONTROL.test(url))) {
      issues.push({ path: 'options.url', message: `must be a string of at most ${MAX_URL} characters without control characters` });
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { tokens: list, source: source as string, url: typeof url === 'string' && url !== '' ? url : null };
}
