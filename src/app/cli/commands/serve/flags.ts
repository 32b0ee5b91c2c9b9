/**
 * The flags of `svc serve` read into what the dev server takes, each problem
 * named by the flag the user typed (and, for a file, the place in it), all at
 * once.
 * @module
 */
import { readFileSync, statSync } from 'node:fs';
import { ValidationError, type IssueInput } from '../../../../errors';
import { checkTrustedWorkloads, type TrustedWorkload } from '../../../../service';
import { checkTrustedIssuers, type TrustedIssuer } from '../../../../tokens';
import { DEV_ISSUER, type ExpirySweep } from '../../../dev';
import { daysFlag } from '../token-input';
import { renameIssues } from '../../args';

/**
 * `--trust-issuer` and `--audience`, paired in order, checked as `createAuth` checks
 * `trustedIssuers` but with the problems named by the flags the user typed.
 */
export function trustFlags(issuers: readonly string[], audiences: readonly string[], issues: IssueInput[]): TrustedIssuer[] {
  if (issuers.length !== audiences.length) {
    issues.push({
      path: '--audience',
      message: `give one --audience per --trust-issuer (${issuers.length} issuers, ${audiences.length} audiences)`,
    });
    return [];
  }
  const list = issuers.map((issuer, i) => ({ issuer, audience: audiences[i] as string }));
  const found: IssueInput[] = [];
  checkTrustedIssuers(list, DEV_ISSUER, found);
  for (const issue of found) {
    const [, i, field] = issue.path as readonly (string | number)[];
    issues.push({
      path: [field === 'audience' ? '--audience' : '--trust-issuer', ...(typeof i === 'number' ? [i] : [])],
      message: issue.message,
    });
  }
  return list;
}

/** The largest --trust-workloads file read: a few issuers with their rules fit in far less. */
const MAX_WORKLOADS_FILE = 64 * 1024;

/**
 * `--trust-workloads <file>`: the JSON list `trustedWorkloads` takes, checked as `createAuth` checks it
 * (every problem at once), with the problems named by the flag and the place in the file.
 */
export function workloadsFile(path: string, issues: IssueInput[]): TrustedWorkload[] | undefined {
  let text: string;
  try {
    if (statSync(path).size > MAX_WORKLOADS_FILE) {
      issues.push({ path: '--trust-workloads', message: `the file is larger than ${MAX_WORKLOADS_FILE / 1024} KiB` });
      return undefined;
    }
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    issues.push({ path: '--trust-workloads', message: `cannot read ${path}${typeof code === 'string' ? ` (${code})` : ''}` });
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    issues.push({ path: '--trust-workloads', message: `${path} is not JSON: expected a list of { issuer, audience, rules }` });
    return undefined;
  }
  // Checked as createAuth checks it; the problems renamed to the flag, each with its place in the file.
  const found: IssueInput[] = [];
  checkTrustedWorkloads(value, DEV_ISSUER, found);
  collect(issues, () => {
    if (found.length > 0) throw renameIssues(new ValidationError(found), { trustedWorkloads: '--trust-workloads' });
  });
  return found.length === 0 ? (value as TrustedWorkload[]) : undefined;
}

export const RANGES = { path: '--trust-proxy', max: 256, allowEmpty: false } as const;
const INTERVAL = /^([1-9][0-9]{0,4})([mh])$/;
const MINUTE_MS = 60_000;

/** Run one flag check, turning its `ValidationError` into issues so that all are reported at once. */
export function collect<T>(issues: IssueInput[], check: () => T): T | undefined {
  try {
    return check();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues.map((i) => ({ code: i.code, path: i.path as (string | number)[], message: i.message })));
    return undefined;
  }
}

/** `--sweep-every` and `--warn-before`: the dev server's expiry sweep, or `false` for none. */
export function sweepFlags(every: string | undefined, before: readonly string[] | undefined, issues: IssueInput[]): ExpirySweep | false {
  const within = before === undefined ? ['7d', '1d'] : before.map((b) => collect(issues, () => daysFlag('warn-before', b)) ?? b);
  if (every === 'off') return false;
  const m = INTERVAL.exec(every ?? '60m');
  const ms = m === null ? Number.NaN : Number(m[1]) * (m[2] === 'h' ? 60 : 1) * MINUTE_MS;
  if (!(ms >= MINUTE_MS && ms <= 24 * 60 * MINUTE_MS)) {
    issues.push({ path: '--sweep-every', message: 'expected <N>m or <N>h from 1m to 24h, or off' });
  }
  return { intervalMs: ms, within };
}

/** The library names a bad origin `options.allowedOrigins[i]`; the user typed `--allow-origin`. */
export function asFlagError(err: unknown): unknown {
  if (!(err instanceof ValidationError) || !err.issues.some((i) => i.path[1] === 'allowedOrigins')) return err;
  return new ValidationError(
    err.issues.map((i) => ({ path: i.path[1] === 'allowedOrigins' ? ['--allow-origin', ...i.path.slice(2)] : i.path, message: i.message })),
    { cause: err },
  );
}
