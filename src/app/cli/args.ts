/**
 * Command-line parsing on `node:util` `parseArgs`, strict: an unknown flag, a
 * stray argument, a missing value or a flag given twice is a `ValidationError`
 * (exit 2), never a raw `TypeError` from node.
 * @module
 */
import { parseArgs } from 'node:util';
import { ValidationError } from '../../errors';

/**
 * One flag a command accepts.
 *
 * @example
 * ```ts
 * const name: FlagSpec = { type: 'string', short: 'n' };
 * ```
 */
export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** May be repeated (strings only); the value is then a list. */
  multiple?: boolean;
  /** A string flag whose value may be left out (`--bind-key` alone, or before another flag): it then reads as `''`. */
  optionalValue?: boolean;
}

/** Parsed flag values by long name: a string, a list (repeatable flags), `true`, or absent. */
export type Flags = Record<string, string | string[] | boolean | undefined>;

/**
 * Parse `args` against `specs` (plus `--help`/`-h`, always accepted).
 *
 * @throws ValidationError with the offending flag as the issue path.
 * @example
 * ```ts
 * parseFlags(['-n', 'ci', '--scope', 'acme=repo:read'], { name: { type: 'string', short: 'n' }, scope: { type: 'string', multiple: true } });
 * // { name: 'ci', scope: ['acme=repo:read'] }
 * ```
 */
export function parseFlags(args: readonly string[], specs: Readonly<Record<string, FlagSpec>>): Flags {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple: boolean }> = {
    help: { type: 'boolean', short: 'h', multiple: true },
  };
  // Every flag is read as repeatable so that a repeated single flag is refused rather than silently overwritten.
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = { type: spec.type, multiple: true, ...(spec.short === undefined ? {} : { short: spec.short }) };
  }
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: withOptionalValues(args, specs), options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw usageError(err);
  }
  const out: Flags = Object.create(null) as Flags;
  out.help = values.help !== undefined;
  for (const [name, spec] of Object.entries(specs)) {
    const v = values[name] as (string | boolean)[] | undefined;
    if (v === undefined) continue;
    if (spec.multiple === true) {
      out[name] = v as string[];
      continue;
    }
    if (v.length > 1) throw new ValidationError([{ path: `--${name}`, message: 'given more than once' }]);
    out[name] = v[0];
  }
  return out;
}

/** `args` with each bare flag of an optional value written `--flag=` (parseArgs has no optional values). */
function withOptionalValues(args: readonly string[], specs: Readonly<Record<string, FlagSpec>>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') return [...out, ...args.slice(i)];
    const next = args[i + 1];
    const bare = a.startsWith('--') && specs[a.slice(2)]?.optionalValue === true;
    out.push(bare && (next === undefined || next.startsWith('-')) ? `${a}=` : a);
  }
  return out;
}

function usageError(err: unknown): ValidationError {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : 'invalid arguments';
  // node's texts name the flag; keep the first sentence and drop its generic advice.
  const flag = /'(-{1,2}[^'\s]*)/.exec(message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new ValidationError([{ path: flag, message: 'unknown flag' }], { cause: err });
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const arg = /'([^']*)'/.exec(message)?.[1] ?? '';
      return new ValidationError([{ path: '', message: `unexpected argument '${arg}' (values go after a flag, e.g. --name ci)` }], {
        cause: err,
      });
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new ValidationError([{ path: flag, message: "needs a value (a value starting with '-' is written --flag=value)" }], {
        cause: err,
      });
    default:
      return new ValidationError([{ path: flag, message: message.split('. ')[0] ?? 'invalid arguments' }], { cause: err });
  }
}

/**
 * A required string flag.
 *
 * @throws ValidationError (path `--<name>`) when it is missing or empty.
 * @example
 * ```ts
 * required(flags, 'name'); // 'ci'
 * ```
 */
export function required(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new ValidationError([{ path: `--${name}`, message: 'is required' }]);
  return v;
}

/**
 * How a library input field is spelled on the command line: a flag name (`'--expires'`), or a
 * function that rewrites the whole issue path (`--scope[0]` keeps only the index of the value).
 */
export type FlagName = string | ((path: readonly (string | number)[]) => readonly (string | number)[]);

/**
 * `err` with the library's field names replaced by the flags the user typed, so that a message
 * says `--expires: …`, never `expiresIn: …`: a CLI user never wrote the SDK's field. Issues on
 * other paths, and errors that are not a `ValidationError`, are returned unchanged.
 *
 * @example
 * ```ts
 * await api.create(input).catch((err: unknown) => {
 *   throw renameIssues(err, { expiresIn: '--expires', committerIdentity: '--committer-identity' });
 * });
 * ```
 */
export function renameIssues(err: unknown, names: Readonly<Record<string, FlagName>>): unknown {
  if (!(err instanceof ValidationError)) return err;
  const issues = err.issues.map((i) => {
    const head = i.path[0];
    const to = typeof head === 'string' && Object.hasOwn(names, head) ? names[head] : undefined;
    if (to === undefined) return i;
    return { code: i.code, message: i.message, path: typeof to === 'string' ? [to, ...i.path.slice(1)] : to(i.path) };
  });
  return new ValidationError(issues, { cause: err });
}

/**
 * The closest known word to `word`, for "did you mean" hints; `undefined` when none is close.
 *
 * @example
 * ```ts
 * closest('tokn', ['token', 'auth']); // 'token'
 * ```
 */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestCost = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const k of known) {
    const cost = distance(word.slice(0, 64), k);
    if (cost < bestCost) {
      best = k;
      bestCost = cost;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}
