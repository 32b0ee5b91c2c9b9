/**
 * Validation of {@link AuthOptions}, once, when `createAuth` builds the object:
 * misuse fails at start-up, not on the first request.
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import { checkTrustedIssuers, dpopNonces, type DpopNonces, type IssuerConfig, type KeyRing } from '../tokens';
import { checkOptions } from '../core/vocabulary';
import type { TokenStore } from '../stores';
import { checkRanges, RangeMatcher } from '../core/network';
import type { AuthEventHook } from './events';
import { checkTrustedWorkloads, type WorkloadConfig } from './workloads';
import type { AuthOptions, MembershipSource } from './contract';

/**
 * Options after validation, with every default filled in.
 *
 * @example
 * ```ts
 * const o: ResolvedOptions = resolveOptions(options, isKeyRing);
 * o.clockToleranceSec; // 5 unless given
 * ```
 */
export interface ResolvedOptions {
  readonly issuer: string;
  readonly keys: KeyRing;
  readonly members: MembershipSource;
  readonly tokens: TokenStore | undefined;
  readonly identityOf: ((userId: string) => string) | undefined;
  readonly now: () => Date;
  readonly clockToleranceSec: number;
  readonly dpopProofAgeSec: number;
  /** The resource's DPoP nonces (`dpopNonce`); `null` when proofs need none. */
  readonly dpopNonces: DpopNonces | null;
  readonly signatureCacheSize: number;
  readonly layerCacheSize: number;
  readonly grantCacheSize: number;
  readonly storeTimeoutMs: number;
  /** 0 when last-used recording is off. */
  readonly lastUsedIntervalMs: number;
  readonly onEvent: AuthEventHook | undefined;
  /** The proxies whose `X-Forwarded-For` is believed; `null` when none is. */
  readonly trustProxy: RangeMatcher | null;
  /** Checked trusted issuers; empty when none. */
  readonly trustedIssuers: readonly IssuerConfig[];
  /** Checked workload issuers (W3); empty when none. */
  readonly trustedWorkloads: readonly WorkloadConfig[];
}

const KNOWN = new Set([
  'issuer',
  'keys',
  'members',
  'tokens',
  'identityOf',
  'now',
  'clockToleranceSec',
  'dpopProofAgeSec',
  'dpopNonce',
  'cache',
  'storeTimeoutMs',
  'lastUsedIntervalMs',
  'onEvent',
  'trustProxy',
  'trustedIssuers',
  'trustedWorkloads',
]);

/** Most entries of `trustProxy`. */
const MAX_TRUSTED_PROXIES = 256;

const STORE_METHODS = ['insert', 'readChain', 'listByOwner', 'revoke'] as const;
const RING_METHODS = ['publicJwks', 'exportPrivate', 'rotate', 'retire'] as const;

function hasMethods(value: unknown, names: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return names.every((n) => typeof v[n] === 'function');
}

/** The service's deadline for one store or membership call when `storeTimeoutMs` is not given. */
const DEFAULT_STORE_TIMEOUT_MS = 5_000;

function intInRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * The clock used when `now` is not given. Recognised by identity, so that the
 * service can read `Date.now()` directly instead of making a `Date` per request.
 *
 * @example
 * ```ts
 * resolveOptions({ issuer, keys, members }, isKeyRing).now === systemClock; // true
 * ```
 */
export const systemClock = (): Date => new Date();

/**
 * Check `createAuth` options and fill in defaults. Every problem is reported
 * in one `ValidationError`; unknown keys are refused so that a misspelt option
 * is not silently ignored. `isKeyRing` decides whether `keys` is a ring made by
 * this library.
 *
 * @example
 * ```ts
 * const o = resolveOptions({ issuer: 'https://svc.example', keys, members }, isKeyRing);
 * o.storeTimeoutMs; // 5000
 * ```
 */
export function resolveOptions(options: unknown, isKeyRing: (v: unknown) => boolean): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ValidationError([{ path: '', message: 'createAuth needs an options object' }]);
  }
  const o = options as Partial<Record<keyof AuthOptions, unknown>>;
  const issues: IssueInput[] = [];
  checkOptions(options, KNOWN, '', issues);
  if (typeof o.issuer !== 'string' || o.issuer.trim() === '' || o.issuer.length > 1024) {
    issues.push({ path: 'issuer', message: 'must be a non-empty string of at most 1024 characters' });
  }
  if (!hasMethods(o.keys, RING_METHODS) || !isKeyRing(o.keys)) {
    issues.push({ path: 'keys', message: 'must be a KeyRing from generateKeyRing or importKeyRing' });
  }
  if (!hasMethods(o.members, ['rolesOf'])) issues.push({ path: 'members', message: 'must have a rolesOf(userId) method' });
  if (o.tokens !== undefined && !hasMethods(o.tokens, STORE_METHODS)) {
    issues.push({ path: 'tokens', message: `must implement TokenStore (${STORE_METHODS.join(', ')})` });
  }
  if (o.identityOf !== undefined && typeof o.identityOf !== 'function') issues.push({ path: 'identityOf', message: 'must be a function' });
  if (o.now !== undefined && typeof o.now !== 'function') issues.push({ path: 'now', message: 'must be a function returning a Date' });
  if (o.clockToleranceSec !== undefined && !intInRange(o.clockToleranceSec, 0, 300)) {
    issues.push({ path: 'clockToleranceSec', message: 'must be an integer from 0 to 300' });
  }
  const cache = cacheSizes(o.cache, issues);
  if (o.storeTimeoutMs !== undefined && !intInRange(o.storeTimeoutMs, 1, 600_000)) {
    issues.push({ path: 'storeTimeoutMs', message: 'must be an integer from 1 to 600 000' });
  }
  const budget = changeBudget(o.tokens, issues);
  const deadline = o.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  if (budget !== undefined && typeof deadline === 'number' && deadline <= budget) {
    issues.push({
      path: 'storeTimeoutMs',
      message: `must be above the token store's changeBudgetMs (${budget} ms), so that a change reported as failed never lands later`,
    });
  }
  if (o.lastUsedIntervalMs !== undefined && !(o.lastUsedIntervalMs === 0 || intInRange(o.lastUsedIntervalMs, 1_000, 86_400_000))) {
    issues.push({ path: 'lastUsedIntervalMs', message: 'must be 0 (off) or an integer from 1 000 to 86 400 000' });
  }
  if (o.dpopProofAgeSec !== undefined && !intInRange(o.dpopProofAgeSec, 10, 3_600)) {
    issues.push({ path: 'dpopProofAgeSec', message: 'must be an integer from 10 to 3 600' });
  }
  const nonces = nonceOptions(o.dpopNonce, issues);
  if (o.onEvent !== undefined && typeof o.onEvent !== 'function') issues.push({ path: 'onEvent', message: 'must be a function' });
  const trustProxy = trustedProxies(o.trustProxy, issues);
  const trustedIssuers = checkTrustedIssuers(o.trustedIssuers, o.issuer, issues);
  const trustedWorkloads = checkTrustedWorkloads(o.trustedWorkloads, o.issuer, issues);
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({
    issuer: o.issuer as string,
    keys: o.keys as KeyRing,
    members: o.members as MembershipSource,
    tokens: o.tokens as TokenStore | undefined,
    identityOf: o.identityOf as ((userId: string) => string) | undefined,
    now: (o.now as (() => Date) | undefined) ?? systemClock,
    clockToleranceSec: (o.clockToleranceSec as number | undefined) ?? 5,
    dpopProofAgeSec: (o.dpopProofAgeSec as number | undefined) ?? 300,
    dpopNonces: nonces,
    signatureCacheSize: cache.signatures,
    layerCacheSize: cache.layers,
    grantCacheSize: cache.grants,
    storeTimeoutMs: (o.storeTimeoutMs as number | undefined) ?? DEFAULT_STORE_TIMEOUT_MS,
    lastUsedIntervalMs: (o.lastUsedIntervalMs as number | undefined) ?? 60_000,
    onEvent: o.onEvent as AuthEventHook | undefined,
    trustProxy,
    trustedIssuers,
    trustedWorkloads,
  });
}

const NONCE_KEYS = new Set(['secret', 'lifetimeSec']);
const MIN_NONCE_SECRET_BYTES = 32;
const MAX_NONCE_SECRET_BYTES = 1024;

/** `dpopNonce`: its secret's bytes and the slot's length, checked now; `null` when absent. */
function nonceOptions(value: unknown, issues: IssueInput[]): DpopNonces | null {
  if (value === undefined) return null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path: 'dpopNonce', message: 'must be an object { secret, lifetimeSec? }' });
    return null;
  }
  const before = issues.length;
  checkOptions(value, NONCE_KEYS, 'dpopNonce', issues);
  const { secret, lifetimeSec } = value as { secret?: unknown; lifetimeSec?: unknown };
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret instanceof Uint8Array ? secret : undefined;
  if (bytes === undefined || bytes.length < MIN_NONCE_SECRET_BYTES || bytes.length > MAX_NONCE_SECRET_BYTES) {
    // Never the secret itself: only its size, when it has one.
    issues.push({
      path: 'dpopNonce.secret',
      message: `must be a string or Uint8Array of ${MIN_NONCE_SECRET_BYTES} to ${MAX_NONCE_SECRET_BYTES} bytes${bytes === undefined ? '' : ` (got ${bytes.length})`}`,
    });
  }
  if (lifetimeSec !== undefined && !intInRange(lifetimeSec, 10, 3_600)) {
    issues.push({ path: 'dpopNonce.lifetimeSec', message: 'must be an integer from 10 to 3 600' });
  }
  if (issues.length > before || bytes === undefined) return null;
  return dpopNonces({ secret: Uint8Array.from(bytes), lifetimeSec: (lifetimeSec as number | undefined) ?? 60 });
}

/** `trustProxy`: addresses or CIDR ranges, checked now; `null` when absent or empty (trust no proxy). */
function trustedProxies(value: unknown, issues: IssueInput[]): RangeMatcher | null {
  if (value === undefined) return null;
  try {
    const list = checkRanges(value, { path: 'trustProxy', max: MAX_TRUSTED_PROXIES, allowEmpty: true });
    return list.length === 0 ? null : new RangeMatcher(list);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues.map((i) => ({ code: i.code, path: i.path as (string | number)[], message: i.message })));
    return null;
  }
}

/** A store's optional `changeBudgetMs`, read once; anything but a whole number of milliseconds is an issue. */
function changeBudget(store: unknown, issues: IssueInput[]): number | undefined {
  if (typeof store !== 'object' || store === null) return undefined;
  let value: unknown;
  try {
    value = (store as { changeBudgetMs?: unknown }).changeBudgetMs;
  } catch {
    value = Number.NaN;
  }
  if (value === undefined) return undefined;
  if (!intInRange(value, 0, 600_000)) {
    issues.push({ path: 'tokens.changeBudgetMs', message: 'must be a whole number of milliseconds from 0 to 600 000' });
    return undefined;
  }
  return value;
}

const CACHES = ['signatures', 'layers', 'grants'] as const;

/** The `cache` option's three bounds, each 10 000 unless given; a bad one is an issue at `cache.<name>`. */
function cacheSizes(value: unknown, issues: IssueInput[]): Record<(typeof CACHES)[number], number> {
  const sizes = { signatures: 10_000, layers: 10_000, grants: 10_000 };
  if (value === undefined) return sizes;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path: 'cache', message: 'must be an object such as { signatures: 10000 }' });
    return sizes;
  }
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!(CACHES as readonly string[]).includes(key))
      issues.push({ path: ['cache', key], message: 'unknown cache (signatures, layers, grants)' });
  for (const name of CACHES) {
    const n = given[name];
    if (n === undefined) continue;
    if (intInRange(n, 0, 1_000_000)) sizes[name] = n;
    else issues.push({ path: ['cache', name], message: 'must be an integer from 0 to 1 000 000' });
  }
  return sizes;
}
