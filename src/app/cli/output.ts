/**
 * What the CLI prints: plain tables for people, JSON for scripts. Colour only
 * when stdout is a terminal and `NO_COLOR` is not set (https://no-color.org).
 * Everything printed from stored data passes through {@link clean}, so a value
 * in a state file cannot carry terminal escapes.
 * @module
 */
import { formatScopeFlags } from '../../core/scopes';
import type { TokenInfo } from '../../service';
import type { CliEnv } from '../dev';

/**
 * Where a command writes, and what it knows about the terminal.
 *
 * @example
 * ```ts
 * const out: string[] = [];
 * const io: CliIO = { env: {}, stdout: (t) => out.push(t), stderr: () => {}, isTTY: false };
 * ```
 */
export interface CliIO {
  readonly env: CliEnv;
  /** Write to stdout (text already ends with a newline). */
  stdout(text: string): void;
  /** Write to stderr. */
  stderr(text: string): void;
  /** Is stdout a terminal? */
  readonly isTTY: boolean;
}

/**
 * May output be coloured? Only on a terminal, and never when `NO_COLOR` is set to anything.
 *
 * @example
 * ```ts
 * useColour({ env: { NO_COLOR: '1' }, isTTY: true, stdout() {}, stderr() {} }); // false
 * ```
 */
export function useColour(io: Pick<CliIO, 'env' | 'isTTY'>): boolean {
  return io.isTTY && io.env.NO_COLOR === undefined;
}

const STATUS_COLOUR: Record<TokenInfo['status'], string> = { active: '32', expired: '33', revoked: '31' };

/**
 * A token status, coloured (green, yellow, red) when `colour` is true.
 *
 * @example
 * ```ts
 * statusText('revoked', false); // 'revoked'
 * ```
 */
export function statusText(status: TokenInfo['status'], colour: boolean): string {
  return colour ? `\u001b[${STATUS_COLOUR[status]}m${status}\u001b[0m` : status;
}

// C0/C1 controls and the DEL: never echoed to a terminal from data.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from data, made safe to print: control characters become `?`.
 *
 * @example
 * ```ts
 * clean('a\u001b[2Jb'); // 'a?[2Jb'
 * ```
 */
export function clean(text: string): string {
  return text.replace(CONTROLS, '?');
}

// Escape sequences take no columns; padding must ignore them.
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * A plain-text table: a header row, then one row per item, columns padded by two spaces.
 *
 * @example
 * ```ts
 * table(['NAME', 'STATUS'], [['ci', 'active']]);
 * // 'NAME  STATUS\nci    active\n'
 * ```
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const width = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').replace(ANSI, '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat((width[i] ?? 0) - c.replace(ANSI, '').length)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/**
 * JSON for scripts: two-space indent, dates as ISO 8601 strings, trailing newline.
 *
 * @example
 * ```ts
 * json({ at: new Date(0) }); // '{\n  "at": "1970-01-01T00:00:00.000Z"\n}\n'
 * ```
 */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Scopes as `--scope` style text for a table cell; `(full access)` for a token without scopes.
 *
 * @example
 * ```ts
 * scopeText(null); // '(full access)'
 * scopeText([{ resource: 'acme/web', permissions: ['repo:read'] }]); // 'acme/web=repo:read'
 * ```
 */
export function scopeText(scopes: TokenInfo['scopes'], separator = ' '): string {
  if (scopes === null) return '(full access)';
  if (scopes.length === 0) return '(none)';
  return clean(formatScopeFlags(scopes).join(separator));
}

/** A date as shown to people: ISO 8601 to the second, UTC. */
export function dateText(date: Date | null): string {
  return date === null ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const DAY_MS = 86_400_000;
const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', DAY_MS],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];
const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/**
 * A time relative to `nowMs`, for people: `in 30 days`, `2 hours ago`. The unit is the largest
 * (day, hour, minute, second) of which the span holds at least one whole; the count is that span
 * rounded to the nearest whole unit, halves up. Rounding, not truncating, is what makes a token
 * created a moment ago with `--expires 30d` read `in 30 days` (truncating 29.99 days said
 * `in 29 days`); the exact instant is always beside it in `svc token get` and in `--json`.
 *
 * @example
 * ```ts
 * relativeText(new Date(Date.now() + 3.5 * 864e5), Date.now()); // 'in 4 days'
 * relativeText(new Date(Date.now() + 864e5 - 1000), Date.now()); // 'in 24 hours'
 * ```
 */
export function relativeText(date: Date, nowMs: number): string {
  const diff = date.getTime() - nowMs;
  const abs = Math.abs(diff);
  for (const [unit, ms] of UNITS) {
    if (abs >= ms || unit === 'second') {
      const n = Math.round(abs / ms);
      return RELATIVE.format(diff < 0 ? -n : n, unit);
    }
  }
  return RELATIVE.format(0, 'second');
}

/**
 * When a token expires, for people: `in 3 days`, or `expired 2 days ago`.
 *
 * @example
 * ```ts
 * expiryText(info, Date.now()); // 'in 30 days' for a token created just now with --expires 30d
 * ```
 */
export function expiryText(t: Pick<TokenInfo, 'expiresAt'>, nowMs: number): string {
  const rel = relativeText(t.expiresAt, nowMs);
  return t.expiresAt.getTime() <= nowMs ? `expired ${rel}` : rel;
}

/**
 * When a token was last used, for people: `3 hours ago`, or `never`.
 *
 * @example
 * ```ts
 * lastUsedText(info, Date.now()); // 'never'
 * ```
 */
export function lastUsedText(t: Pick<TokenInfo, 'lastUsedAt'>, nowMs: number): string {
  return t.lastUsedAt === null ? 'never' : relativeText(t.lastUsedAt, Math.max(nowMs, t.lastUsedAt.getTime()));
}

/**
 * The active tokens that expire within `withinMs` of `nowMs`, soonest first.
 *
 * @example
 * ```ts
 * expiringSoon(infos, Date.now(), 7 * 864e5).map((t) => t.name);
 * ```
 */
export function expiringSoon(infos: readonly TokenInfo[], nowMs: number, withinMs = 7 * DAY_MS): TokenInfo[] {
  return infos
    .filter((t) => t.status === 'active' && t.expiresAt.getTime() - nowMs <= withinMs)
    .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime());
}

/**
 * The table of `svc token list`: expiry and last use relative to `nowMs`.
 *
 * @example
 * ```ts
 * io.stdout(tokenTable(await client.token.list(), useColour(io), Date.now()));
 * ```
 */
export function tokenTable(infos: readonly TokenInfo[], colour: boolean, nowMs: number): string {
  if (infos.length === 0) return 'no tokens\n';
  return table(
    ['NAME', 'STATUS', 'EXPIRES', 'LAST USED', 'SCOPES'],
    infos.map((t) => [clean(t.name), statusText(t.status, colour), expiryText(t, nowMs), lastUsedText(t, nowMs), scopeText(t.scopes)]),
  );
}

/**
 * The detail view of `svc token get`: one `field  value` line each.
 *
 * @example
 * ```ts
 * io.stdout(tokenDetail(await client.token.get('ci'), false, Date.now()));
 * ```
 */
export function tokenDetail(t: TokenInfo, colour: boolean, nowMs?: number): string {
  const scopes = t.scopes === null ? ['(full access)'] : formatScopeFlags(t.scopes).map(clean);
  const rows: [string, string][] = [
    ['name', clean(t.name)],
    ['status', statusText(t.status, colour)],
    ['description', t.description === null ? '-' : clean(t.description)],
    ['scopes', scopes[0] ?? '(none)'],
    ...scopes.slice(1).map((s): [string, string] => ['', s]),
    ['created', dateText(t.createdAt)],
    ['expires', nowMs === undefined ? dateText(t.expiresAt) : `${dateText(t.expiresAt)} (${expiryText(t, nowMs)})`],
    ['revoked', dateText(t.revokedAt)],
    [
      'last used',
      (t.lastUsedAt === null
        ? 'never'
        : nowMs === undefined
          ? dateText(t.lastUsedAt)
          : `${dateText(t.lastUsedAt)} (${lastUsedText(t, nowMs)})`) +
        (t.lastUsed?.address == null ? '' : ` from ${clean(t.lastUsed.address)}`),
    ],
    ...usageRows(t, nowMs),
    ...(t.boundKey === null ? [] : [['bound key', `${t.boundKey} (each use needs a DPoP proof by this key)`] as [string, string]]),
    ...t.orgAccess.map((a, i): [string, string] => [i === 0 ? 'org access' : '', orgAccessText(a)]),
    ['committer', t.committerIdentity === null ? '(owner identity)' : clean(t.committerIdentity)],
    ['id', t.id],
    ['parent', t.parentId ?? '-'],
  ];
  return rows.map(([k, v]) => `${k.padEnd(12)}${v}`.trimEnd()).join('\n') + '\n';
}

/** One org's access: `acme  denied by carol 2026-…: reason`. */
function orgAccessText(a: TokenInfo['orgAccess'][number]): string {
  const by = a.decidedBy === null ? '' : ` by ${clean(a.decidedBy)} ${dateText(a.decidedAt)}`;
  return `${a.org}  ${a.status}${by}${a.reason === null ? '' : `: ${clean(a.reason)}`}`;
}

/** The detail rows of where a token may be and was used from: allowed ranges, then the last few addresses. */
function usageRows(t: TokenInfo, nowMs: number | undefined): [string, string][] {
  const rows: [string, string][] = [];
  const allowed = t.allowedIps === null ? ['anywhere'] : t.allowedIps.map(clean);
  rows.push(['allowed ips', allowed[0] ?? ''], ...allowed.slice(1).map((a): [string, string] => ['', a]));
  const seen = t.usedFrom.map((u) => {
    const when = nowMs === undefined ? dateText(u.at) : `${dateText(u.at)} (${relativeText(u.at, Math.max(nowMs, u.at.getTime()))})`;
    return `${clean(u.address)}  ${when}${u.userAgent === null ? '' : `  ${clean(u.userAgent)}`}`;
  });
  if (seen.length > 0) rows.push(['used from', seen[0] as string], ...seen.slice(1).map((a): [string, string] => ['', a]));
  return rows;
}
