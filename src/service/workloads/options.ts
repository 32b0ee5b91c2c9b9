/**
 * The `trustedWorkloads` option (W3), checked once when `createAuth` builds the
 * object: every problem of every issuer and rule is collected into one
 * `ValidationError`, so a deployment learns all of them at start-up.
 * @module
 */
import { ValidationError, type IssueInput } from '../../errors';
import { isPlainObject, parseServiceAccountId, serviceAccountId, type ServiceAccountRef } from '../../core/vocabulary';
import { normalizeScopes, parseScopeFlags, type Scope, type ScopeEntry } from '../../core/scopes';
import { urlProblem } from '../../tokens';

/** A checked rule of a trusted workload issuer. */
export interface WorkloadRuleConfig {
  /** Its place in the issuer's `rules`, for messages. */
  readonly index: number;
  /** The claims to equal, in the order given. */
  readonly claims: readonly (readonly [string, string | number | boolean])[];
  readonly account: ServiceAccountRef;
  /** `sa:<org>/<name>`: the owner of the tokens it leads to. */
  readonly accountId: string;
  /** Normalized; `null`: the account's role. */
  readonly scopes: readonly Scope[] | null;
  readonly lifetimeSec: number;
}

/**
 * @internal A trusted workload issuer after validation.
 *
 * @example
 * ```ts
 * const [github]: readonly WorkloadConfig[] = checkTrustedWorkloads(option, 'https://svc.example', issues);
 * github?.rules[0]?.lifetimeSec; // 900
 * ```
 */
export interface WorkloadConfig {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri: URL | null;
  readonly rules: readonly WorkloadRuleConfig[];
}

/** At most this many workload issuers. */
export const MAX_WORKLOAD_ISSUERS = 16;
const MAX_RULES = 50;
const MAX_CLAIMS = 20;
const MAX_VALUE = 512;
const MAX_AUDIENCE = 1024;
/** Default life of an exchanged token, and its cap (W3). */
export const WORKLOAD_LIFETIME = Object.freeze({ defaultSec: 15 * 60, maxSec: 60 * 60 });
const ISSUER_KEYS = ['issuer', 'audience', 'jwksUri', 'rules'];
const RULE_KEYS = ['claims', 'serviceAccount', 'scopes', 'expiresIn'];
// Claim names as issuers write them (GitHub `job_workflow_ref`, Kubernetes `kubernetes.io`), never a prototype member.
const CLAIM = /^[A-Za-z0-9_$][A-Za-z0-9_$.:/-]{0,127}$/;
const FORBIDDEN_CLAIMS = new Set(['__proto__', 'constructor', 'prototype']);
const PRINTABLE = /^[\x21-\x7e]+$/;
const EXPIRY = /^([1-9][0-9]{0,3})(m|h)$/;

type At = (...rest: (string | number)[]) => (string | number)[];

/**
 * @internal A rule's `expiresIn` in seconds: `<N>m` or `<N>h`, at most one hour; `undefined` when it breaks that.
 *
 * @example
 * ```ts
 * workloadLifetime('30m'); // 1800
 * workloadLifetime('2h');  // undefined
 * ```
 */
export function workloadLifetime(value: unknown): number | undefined {
  if (value === undefined) return WORKLOAD_LIFETIME.defaultSec;
  const m = typeof value === 'string' ? EXPIRY.exec(value) : null;
  if (m === null) return undefined;
  const sec = Number(m[1]) * (m[2] === 'h' ? 3600 : 60);
  return sec <= WORKLOAD_LIFETIME.maxSec ? sec : undefined;
}

/**
 * @internal `--scope` flags and scope entries, mixed, normalized (core/scopes); a `ValidationError` for a bad one.
 *
 * @example
 * ```ts
 * workloadScopes(['acme/api=repo:write']); // [{ resource: 'acme/api', permissions: ['repo:read', 'repo:write'] }] (roles expand)
 * ```
 */
export function workloadScopes(value: unknown): Scope[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ValidationError([{ path: [], message: 'must be a non-empty list of --scope flags or scope entries' }]);
  }
  const flags = value.filter((v): v is string => typeof v === 'string');
  const entries = value.filter((v) => typeof v !== 'string') as ScopeEntry[];
  return normalizeScopes([...(flags.length === 0 ? [] : parseScopeFlags(flags)), ...entries]).scopes;
}

function checkClaims(value: unknown, at: At, issues: IssueInput[]): [string, string | number | boolean][] {
  const out: [string, string | number | boolean][] = [];
  if (!isPlainObject(value) || Object.keys(value).length === 0 || Object.keys(value).length > MAX_CLAIMS) {
    issues.push({ path: at('claims'), message: `must be an object of 1 to ${MAX_CLAIMS} claims, such as { repository: 'acme/api' }` });
    return out;
  }
  for (const [name, v] of Object.entries(value)) {
    if (!CLAIM.test(name) || FORBIDDEN_CLAIMS.has(name)) {
      issues.push({ path: at('claims', name.slice(0, 64)), message: 'is not a claim name' });
    } else if (
      (typeof v === 'string' && v.length > 0 && v.length <= MAX_VALUE) ||
      (typeof v === 'number' && Number.isFinite(v)) ||
      typeof v === 'boolean'
    ) {
      out.push([name, v]);
    } else {
      issues.push({ path: at('claims', name), message: `must be a string (1 to ${MAX_VALUE} characters), a number or a boolean` });
    }
  }
  return out;
}

function checkRule(value: unknown, index: number, at: At, issues: IssueInput[]): WorkloadRuleConfig | undefined {
  if (!isPlainObject(value)) {
    issues.push({ path: at(), message: 'must be an object { claims, serviceAccount, scopes?, expiresIn? }' });
    return undefined;
  }
  const before = issues.length;
  for (const key of Reflect.ownKeys(value))
    if (typeof key !== 'string' || !RULE_KEYS.includes(key))
      issues.push({ code: 'unrecognized_keys', path: at(String(key).slice(0, 64)), message: 'unknown option' });
  const claims = checkClaims(value.claims, at, issues);
  const sa = value.serviceAccount;
  const account = typeof sa === 'string' ? parseServiceAccountId(`sa:${sa}`) : null;
  if (account === null) issues.push({ path: at('serviceAccount'), message: 'must be <org>/<name> of a service account' });
  let scopes: Scope[] | null = null;
  if (value.scopes !== undefined) {
    try {
      scopes = workloadScopes(value.scopes);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      issues.push(...err.issues.map((i) => ({ code: i.code, path: at('scopes', ...(i.path as (string | number)[])), message: i.message })));
    }
  }
  const lifetimeSec = workloadLifetime(value.expiresIn);
  if (lifetimeSec === undefined) issues.push({ path: at('expiresIn'), message: 'must be <N>m or <N>h, at most 1h' });
  if (issues.length !== before || account === null || lifetimeSec === undefined) return undefined;
  return Object.freeze({
    index,
    claims: Object.freeze(claims.map((c) => Object.freeze(c))),
    account: Object.freeze(account),
    accountId: serviceAccountId(account.org, account.name) as string,
    scopes: scopes === null ? null : Object.freeze(scopes),
    lifetimeSec,
  });
}

function checkIssuer(entry: unknown, i: number, ownIssuer: unknown, issues: IssueInput[]): WorkloadConfig | undefined {
  const at: At = (...rest) => ['trustedWorkloads', i, ...rest];
  if (!isPlainObject(entry)) {
    issues.push({ path: at(), message: 'must be an object { issuer, audience, jwksUri?, rules } (docs/machines.md)' });
    return undefined;
  }
  const before = issues.length;
  for (const key of Reflect.ownKeys(entry))
    if (typeof key !== 'string' || !ISSUER_KEYS.includes(key))
      issues.push({ code: 'unrecognized_keys', path: at(String(key).slice(0, 64)), message: 'unknown option' });
  const { issuer, audience, jwksUri, rules } = entry;
  const issuerProblem = urlProblem(issuer);
  if (issuerProblem !== undefined) issues.push({ path: at('issuer'), message: issuerProblem });
  else if (issuer === ownIssuer) issues.push({ path: at('issuer'), message: "is this instance's own issuer" });
  if (typeof audience !== 'string' || audience.length === 0 || audience.length > MAX_AUDIENCE || !PRINTABLE.test(audience)) {
    issues.push({ path: at('audience'), message: `is required: 1 to ${MAX_AUDIENCE} printable characters without spaces` });
  }
  const jwksProblem = jwksUri === undefined ? undefined : urlProblem(jwksUri);
  if (jwksProblem !== undefined) issues.push({ path: at('jwksUri'), message: jwksProblem });
  const checked: WorkloadRuleConfig[] = [];
  if (!Array.isArray(rules) || rules.length === 0 || rules.length > MAX_RULES) {
    issues.push({ path: at('rules'), message: `must be a list of 1 to ${MAX_RULES} rules` });
  } else {
    rules.forEach((rule: unknown, r) => {
      const c = checkRule(rule, r, (...rest) => at('rules', r, ...rest), issues);
      if (c !== undefined) checked.push(c);
    });
  }
  if (issues.length !== before) return undefined;
  return Object.freeze({
    issuer: issuer as string,
    audience: audience as string,
    jwksUri: jwksUri === undefined ? null : new URL(jwksUri as string),
    rules: Object.freeze(checked),
  });
}

/**
 * @internal Check `createAuth`'s `trustedWorkloads` (`undefined`: none), adding every problem to `issues` at
 * `trustedWorkloads[i].<field>`. Returns the checked issuers (meaningless when an issue was added).
 *
 * @example
 * ```ts
 * const issues: IssueInput[] = [];
 * const list = checkTrustedWorkloads([{ issuer: 'https://token.actions.githubusercontent.com', audience: 'https://svc.example',
 *   rules: [{ claims: { repository: 'acme/api' }, serviceAccount: 'acme/ci-bot' }] }], 'https://svc.example', issues);
 * ```
 */
export function checkTrustedWorkloads(value: unknown, ownIssuer: unknown, issues: IssueInput[]): readonly WorkloadConfig[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_WORKLOAD_ISSUERS) {
    issues.push({ path: ['trustedWorkloads'], message: `must be a list of at most ${MAX_WORKLOAD_ISSUERS} { issuer, audience, rules }` });
    return [];
  }
  const out: WorkloadConfig[] = [];
  const seen = new Set<string>();
  value.forEach((entry: unknown, i) => {
    const c = checkIssuer(entry, i, ownIssuer, issues);
    if (c === undefined) return;
    // One issuer, one entry: its rules are tried in order, so two entries would make the order ambiguous.
    if (seen.has(c.issuer)) issues.push({ code: 'duplicate', path: ['trustedWorkloads', i, 'issuer'], message: 'is listed twice' });
    seen.add(c.issuer);
    out.push(c);
  });
  return Object.freeze(out);
}
