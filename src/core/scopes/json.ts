/**
 * Syntax of `--scopes-json` (rule S4). The text is measured and scanned before
 * JSON.parse so that size, nesting, repeated keys and prototype keys are
 * caught on the raw text (where no parser or schema library can have dropped
 * or merged them); zod then checks the shape, and the result is rebuilt from
 * scratch so that no parsed object is ever handed out.
 * @module
 */
import { z } from 'zod';
import { ValidationError } from '../../errors';
import { IssueList, describe, formatPath, guardInput, preview } from './issues';
import { LIMITS, type ScopeEntry } from './types';

const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const ENTRY = z.strictObject({
  resource: z.string().optional(),
  permissions: z.array(z.string()),
  allowedMatches: z.array(z.string()).optional(),
});
const ENTRIES = z.array(ENTRY);

/**
 * Parse the text of `--scopes-json`: a JSON array of scope entries (docs/concepts.md)
 * with only the keys `resource`, `permissions` and `allowedMatches`.
 * Text longer than `LIMITS.maxScopesJsonLength`, nesting deeper than
 * `LIMITS.maxScopesJsonDepth`, a key repeated within one object, and the keys
 * `__proto__`, `constructor` and `prototype` at any depth are rejected before
 * anything else is looked at. Every problem is reported in one
 * `ValidationError` with paths like `[0].permissions[1]`.
 *
 * This checks syntax and shape only; pass the result to `normalizeScopes` for
 * meaning (known permissions, roles, duplicates, limits). An empty array
 * parses to `[]`, which `normalizeScopes` rejects (omit scopes for full access).
 *
 * @example
 * ```ts
 * parseScopesJson('[{"resource":"acme/web","permissions":["repo:read"],"allowedMatches":["Doc/*"]}]');
 * // [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }]
 * ```
 */
export function parseScopesJson(text: string): ScopeEntry[] {
  return guardInput('--scopes-json', () => {
    if (typeof text !== 'string') {
      throw new ValidationError([{ path: '', message: `--scopes-json must be text, got ${describe(text)}` }]);
    }
    if (text.length > LIMITS.maxScopesJsonLength) {
      throw new ValidationError([{ path: '', message: `--scopes-json is longer than ${LIMITS.maxScopesJsonLength} characters` }]);
    }
    const issues = new IssueList();
    const scan = scanKeys(text, issues);
    if (scan === 'too-deep') issues.throwIfAny();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      // The parser's message quotes the input, which may be anything (even a pasted token): not echoed.
      throw new ValidationError([{ path: '', message: '--scopes-json is not valid JSON' }]);
    }
    if (!Array.isArray(data)) {
      issues.add('', `--scopes-json must be a JSON array of scope entries, got ${describe(data)}`);
      issues.throwIfAny();
    }
    const list = data as unknown[];
    if (list.length > LIMITS.maxEntries) {
      issues.add('', `at most ${LIMITS.maxEntries} scope entries are allowed, got ${list.length}`);
      issues.throwIfAny();
    }
    const result = ENTRIES.safeParse(list);
    if (!result.success) {
      for (const issue of result.error.issues) addZodIssue(issue, list, issues);
    }
    issues.throwIfAny();
    return list.map((e) => rebuild(e as Record<string, unknown>));
  });
}

function rebuild(e: Record<string, unknown>): ScopeEntry {
  // A fresh object with the keys in the documented order, whatever order they were written in.
  const resource = e.resource;
  const matches = e.allowedMatches;
  return {
    ...(typeof resource === 'string' ? { resource } : {}),
    permissions: (e.permissions as string[]).slice(),
    ...(Array.isArray(matches) ? { allowedMatches: (matches as string[]).slice() } : {}),
  };
}

interface ZodIssueLike {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
  readonly expected?: unknown;
}

function addZodIssue(issue: ZodIssueLike, data: unknown, issues: IssueList): void {
  const path = issue.path;
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys ?? []) {
      if (FORBIDDEN_KEYS.has(key)) continue; // already reported by the scan
      issues.add(
        formatPath([...path, key]),
        'unknown key: an entry has only resource, permissions and allowedMatches',
        'unrecognized_keys',
      );
    }
    return;
  }
  if (issue.code === 'invalid_type') {
    const got = describe(valueAt(data, path));
    const last = path[path.length - 1];
    const hint = last === 'resource' ? ' (omit the key for the global wildcard)' : '';
    issues.add(formatPath(path), `expected ${String(issue.expected)}${hint}, got ${got}`);
    return;
  }
  issues.add(formatPath(path), issue.message);
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const k of path) {
    if (typeof v !== 'object' || v === null || !Object.prototype.hasOwnProperty.call(v, k)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

type Frame = { array: true; index: number } | { array: false; key: string | null; keys: Set<string>; expectKey: boolean };

/**
 * One pass over the raw text: depth, repeated keys and prototype keys, with
 * the path of each. Malformed text stops the scan quietly; JSON.parse reports it.
 */
function scanKeys(text: string, issues: IssueList): 'ok' | 'too-deep' {
  const stack: Frame[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 0x5c /* \ */) j += 2;
        else if (d === 0x22) break;
        else j++;
      }
      if (j >= n) return 'ok';
      const top = stack[stack.length - 1];
      if (top && !top.array && top.expectKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, j + 1)) as string;
        } catch {
          return 'ok';
        }
        const where = formatPath([...pathOf(stack), key]);
        if (FORBIDDEN_KEYS.has(key)) issues.add(where, `the key ${preview(key)} is not allowed`);
        else if (top.keys.has(key)) issues.add(where, `the key ${preview(key)} appears more than once in one object`);
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = j;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (stack.length >= LIMITS.maxScopesJsonDepth) {
        issues.add(formatPath(pathOf(stack)), `nested deeper than ${LIMITS.maxScopesJsonDepth} levels`);
        return 'too-deep';
      }
      stack.push(c === 0x5b ? { array: true, index: 0 } : { array: false, key: null, keys: new Set(), expectKey: true });
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
      else if (top) {
        top.expectKey = true;
        top.key = null;
      }
    }
  }
  return 'ok';
}

function pathOf(stack: readonly Frame[]): PropertyKey[] {
  const out: PropertyKey[] = [];
  for (const f of stack) {
    if (f.array) out.push(f.index);
    else if (f.key !== null) out.push(f.key);
  }
  return out;
}
