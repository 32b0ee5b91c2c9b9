/**
 * What the `svc token` commands read from their flags, in the CLI's own words: lifetimes as
 * `<N>d`, `--scope` values with a "did you mean" for the common slips, and the library's issues
 * renamed to the flags the user typed (a CLI message never names an SDK field such as
 * `expiresIn` or `scopes[0]`).
 * @module
 */
import { ValidationError, type IssueInput } from '../../../errors';
import { parseResource, parseScopeFlags, parseScopesJson, type ScopeEntry } from '../../../core/scopes';
import { parsePatExpiry } from '../../../tokens';
import { PERMISSIONS, ROLES } from '../../../core/vocabulary';
import { closest, renameIssues } from '../args';
import type { Principal } from '../../../core/policy';
import type { TokenApi } from '../../../service';
import type { DevInstance } from '../../dev';

const DAYS = 'expected <N>d, a whole number of days from 1 to 365, e.g. 90d';

/**
 * A PAT lifetime flag (`--expires` of `token create`, `--expiring` of `token list`) checked
 * by the library's own rule (T3), refused in the CLI's words. A bare number is refused, with a
 * "did you mean --expires 30d?": the same flag name on `auth login` takes `d`, `h` or `m`, where
 * a bare `30` would be a guess, so every duration flag of `svc` carries its unit. (The SDK's
 * `expiresIn: 30` is a typed number of days; on a command line every value is text.)
 *
 * @throws ValidationError with the flag as its path.
 * @example
 * ```ts
 * daysFlag('expires', '90d'); // '90d'
 * daysFlag('expires', '30');  // throws: --expires: expected <N>d … / did you mean --expires 30d?
 * ```
 */
export function daysFlag(flag: string, value: string): string {
  try {
    parsePatExpiry(value);
    return value;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const issues: IssueInput[] = [{ path: [`--${flag}`], message: DAYS }];
    const n = /^\s*([0-9]{1,3})\s*(?:days?)?\s*$/i.exec(value)?.[1];
    if (n !== undefined && Number(n) >= 1 && Number(n) <= 365) issues.push({ path: [], message: `did you mean --${flag} ${Number(n)}d?` });
    throw new ValidationError(issues, { cause: err });
  }
}

/** Where the scopes of a command came from: the flag, and its values for the hints. */
export interface ScopeSource {
  readonly flag: '--scope' | '--scopes-json';
  readonly values: readonly string[];
}

/**
 * The scopes of `token create` (S4: one of the two spellings, never both), with the source
 * that {@link createIssues} and {@link flagWarning} name.
 *
 * @throws ValidationError for both flags at once, or a value the syntax refuses (with hints).
 * @example
 * ```ts
 * readScopes(['acme/web=repo:read'], undefined); // { entries: [{ resource: 'acme/web', … }], source: { flag: '--scope', … } }
 * ```
 */
export function readScopes(
  flags: readonly string[] | undefined,
  jsonText: string | undefined,
): { entries: ScopeEntry[]; source: ScopeSource } | undefined {
  if (flags !== undefined && jsonText !== undefined) {
    throw new ValidationError([{ path: '--scopes-json', message: 'cannot be used together with --scope: choose one' }]);
  }
  if (flags !== undefined) {
    const source: ScopeSource = { flag: '--scope', values: flags };
    try {
      return { entries: parseScopeFlags([...flags]), source };
    } catch (err) {
      throw withScopeHints(err, source);
    }
  }
  if (jsonText !== undefined) return { entries: parseScopesJson(jsonText), source: { flag: '--scopes-json', values: [] } };
  return undefined;
}

/**
 * A refusal of `client.token.create` as the CLI prints it: `scopes[0]…` becomes `--scope[0]`
 * (only the index: a `--scope` value has no fields) or `--scopes-json[0].permissions[1]` (the
 * user wrote those keys), the other fields become their flags, and a refused `--scope` value
 * gets its hint.
 *
 * @example
 * ```ts
 * await api.create(input).catch((err: unknown) => { throw createIssues(err, source); });
 * ```
 */
export function createIssues(err: unknown, source: ScopeSource | undefined): unknown {
  const renamed = renameIssues(err, {
    name: '--name',
    description: '--description',
    expiresIn: '--expires',
    committerIdentity: '--committer-identity',
    allowedIps: '--allow-ip',
    justification: '--justification',
    bindKey: '--bind-key',
    scopes: (path) => (source?.flag === '--scope' ? ['--scope', ...path.slice(1, 2)] : ['--scopes-json', ...path.slice(1)]),
  });
  return source === undefined ? renamed : withScopeHints(renamed, source);
}

/**
 * A warning of `create` with its path in flag terms: `scopes[0]: …` and `[1].allowedMatches: …`
 * become `--scope[0]: …` and `--scopes-json[1].allowedMatches: …`.
 *
 * @example
 * ```ts
 * flagWarning('scopes[0]: acme=repo:write is above your current role', '--scope'); // '--scope[0]: acme=…'
 * ```
 */
export function flagWarning(text: string, flag: ScopeSource['flag'] | undefined): string {
  if (flag === undefined) return text;
  return text.replace(/^scopes(?=\[\d+\])/, flag).replace(/^(?=\[\d+\])/, flag);
}

/**
 * `err` from parsing the flags of `token create`, with a hint when an unquoted space split a
 * scope in two: `--scope acme/web repo:read` leaves `repo:read` as a stray argument.
 *
 * @example
 * ```ts
 * try { parseFlags(args, specs); } catch (err) { throw strayScopeHint(err, args); }
 * ```
 */
export function strayScopeHint(err: unknown, args: readonly string[]): unknown {
  if (!(err instanceof ValidationError)) return err;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    const [value, next] = a === '--scope' ? [args[i + 1], args[i + 2]] : a.startsWith('--scope=') ? [a.slice(8), args[i + 1]] : [];
    if (value === undefined || next === undefined || next.startsWith('-')) continue;
    const hint = scopeHint(value, next);
    if (hint !== undefined) return new ValidationError([...err.issues, { path: [], message: hint }], { cause: err });
  }
  return err;
}

/** After the first issue on each refused `--scope[i]`, the hint for that value, if any. */
function withScopeHints(err: unknown, source: ScopeSource): unknown {
  if (!(err instanceof ValidationError) || source.flag !== '--scope') return err;
  const out: IssueInput[] = [];
  const hinted = new Set<number>();
  for (const issue of err.issues) {
    out.push(issue);
    const i = issue.path[0] === '--scope' ? issue.path[1] : undefined;
    if (typeof i !== 'number' || hinted.has(i)) continue;
    hinted.add(i);
    const hint = scopeHint(source.values[i] ?? '');
    if (hint !== undefined) out.push({ path: [], message: hint });
  }
  return out.length === err.issues.length ? err : new ValidationError(out, { cause: err });
}

const WORDS: readonly string[] = [...PERMISSIONS, ...ROLES.map((r) => `role:${r}`)];
// Words that begin a permission, never read as a resource: `repo:reed` is a typo, not `repo=reed`.
const PREFIXES = new Set(['repo', 'org', 'role']);
const HINT_MAX = 512;

/**
 * A "did you mean" for a `--scope` value the library refused, or `undefined` when no good
 * guess exists. `next` is the argument after it, when a space split the value in two.
 * The slips: `:` or a space where `=` belongs (`acme/web:repo:read`, `acme/web repo:read`),
 * a resource without permissions (`acme/web`), a role without `role:` (`acme=editor`), a
 * permission without its `repo:` (`acme/web=read`), a typo (`repo:reed`), spaces between
 * permissions instead of commas.
 */
function scopeHint(raw: string, next?: string): string | undefined {
  // A hint is for a slip of a few words: a long value (a flood) gets the library's message alone,
  // so the guessing below stays a few short edit distances.
  if (raw.length > HINT_MAX || (next?.length ?? 0) > HINT_MAX) return undefined;
  const v = raw.trim();
  const tail = next === undefined ? undefined : fixPermissions(next);
  const eq = v.indexOf('=');
  if (eq >= 0) {
    const resource = v.slice(0, eq).trim();
    if (resource !== '' && parseResource(resource) === null) return undefined;
    const perms = fixPermissions(v.slice(eq + 1));
    if (perms === undefined || (next !== undefined && tail === undefined)) return undefined;
    const fixed = `${resource === '' ? '' : `${resource}=`}${perms}${tail === undefined ? '' : `,${tail}`}`;
    return fixed === v ? undefined : didYouMean(fixed);
  }
  const split = /^([^\s:,]+)(?:\s*:\s*|\s+)(\S.*)$/.exec(v);
  const [, head = '', rest = ''] = split ?? [];
  if (split !== null && !PREFIXES.has(head.toLowerCase()) && parseResource(head) !== null) {
    const perms = fixPermissions(rest);
    if (perms !== undefined && (next === undefined || tail !== undefined)) {
      return didYouMean(`${head}=${perms}${tail === undefined ? '' : `,${tail}`}`);
    }
  }
  const perms = fixPermissions(v);
  if (perms !== undefined) {
    if (next !== undefined) return tail === undefined ? undefined : didYouMean(`${perms},${tail}`);
    return perms === v ? undefined : didYouMean(perms);
  }
  if (parseResource(v) === null || PREFIXES.has(v.toLowerCase())) return undefined;
  if (tail !== undefined) return didYouMean(`${v}=${tail}`);
  return `a scope names its permissions after '=': e.g. --scope ${v}=repo:read, or --scope ${v}=role:viewer`;
}

function didYouMean(value: string): string {
  return `did you mean --scope ${value}?`;
}

/** `text` as a comma-separated permission list when every item is, or is one slip from, a permission or role. */
function fixPermissions(text: string): string | undefined {
  const items = text.split(/[\s,]+/).filter((x) => x !== '');
  if (items.length === 0) return undefined;
  const out: string[] = [];
  for (const item of items) {
    const word = item.toLowerCase();
    const fixed = WORDS.includes(word)
      ? word
      : (ROLES as readonly string[]).includes(word)
        ? `role:${word}`
        : WORDS.includes(`repo:${word}`)
          ? `repo:${word}`
          : closest(word, WORDS);
    if (fixed === undefined) return undefined;
    out.push(fixed);
  }
  return out.join(',');
}

/**
 * `--service-account <org>/<name>`: the account, or `undefined` without the flag.
 *
 * @example
 * ```ts
 * accountFlag('acme/ci-bot'); // { org: 'acme', name: 'ci-bot' }
 * ```
 */
export function accountFlag(value: string | undefined): { org: string; name: string } | undefined {
  if (value === undefined) return undefined;
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(value);
  if (m === null) throw new ValidationError([{ path: '--service-account', message: 'must be <org>/<name>, e.g. acme/ci-bot' }]);
  return { org: m[1] as string, name: m[2] as string };
}

/**
 * The token API a command works on: the caller's own, or a service account's.
 *
 * @example
 * ```ts
 * await tokensOf(dev, principal, { org: 'acme', name: 'ci-bot' }).list();
 * ```
 */
export function tokensOf(dev: DevInstance, principal: Principal, account: { org: string; name: string } | undefined): TokenApi {
  const client = dev.auth.client(principal);
  return account === undefined ? client.token : client.org(account.org).serviceAccount(account.name).token;
}
