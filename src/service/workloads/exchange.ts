/**
 * `auth.exchangeWorkloadToken` (W3): a workload's identity token, verified and
 * matched exactly against a configured rule, spent once per `jti`, becomes a
 * short-lived PAT of the rule's service account (W2: the account must exist and
 * be enabled now; its live role caps the token at each use).
 * @module
 */
import { AuthenticationError, ForbiddenError, UnavailableError, ValidationError } from '../../errors';
import { isPlainObject, type RoleName, type ServiceAccountRef } from '../../core/vocabulary';
import type { Scope } from '../../core/scopes';
import type { TokenStore } from '../../stores';
import { ReplayCache } from '../../tokens';
import type { EventDispatcher } from '../events';
import type { ExchangedToken } from '../contract';
import { matchRule } from './match';
import { workloadScopes, type WorkloadConfig, type WorkloadRuleConfig } from './options';
import { WorkloadVerifier } from './verify';

/**
 * @internal What the seam that mints an account's token is given: B's account token creation, or the
 * plain one of this folder (mint.ts) until it is there.
 *
 * @example
 * ```ts
 * const input: MintInput = { account: { org: 'acme', name: 'ci-bot' }, accountId: 'sa:acme/ci-bot', role: 'editor', name: 'workload-x1y2z3w4', scopes: null, lifetimeSec: 900, nowMs: Date.now() };
 * ```
 */
export interface MintInput {
  readonly account: ServiceAccountRef;
  readonly accountId: string;
  /** The account's role on its org, read now: the orgs' policies decide by it. */
  readonly role: RoleName;
  readonly name: string;
  readonly scopes: readonly Scope[] | null;
  readonly lifetimeSec: number;
  readonly nowMs: number;
}

/** @internal Mint and store one PAT of an account: its value, id and expiry. */
export type MintAccountToken = (input: MintInput) => Promise<{ token: string; tokenId: string; expiresAt: Date }>;

/**
 * @internal What one `Auth` instance lends the exchange.
 *
 * @example
 * ```ts
 * const deps: ExchangeDeps = { workloads, clockToleranceSec: 5, store, nowMs, call, events, mint };
 * ```
 */
export interface ExchangeDeps {
  readonly workloads: readonly WorkloadConfig[];
  readonly clockToleranceSec: number;
  readonly store: TokenStore;
  nowMs(): number;
  call<T>(what: string, fn: () => T | Promise<T>): Promise<T>;
  readonly events: EventDispatcher | null;
  readonly mint: MintAccountToken;
  /**
   * Token management's narrowing check (M4), handed in by `createAuth`: importing `manage/` here
   * would close a cycle through the options, which import this folder.
   */
  readonly checkNarrowing: (child: readonly Scope[], layers: readonly (readonly Scope[])[]) => void;
}

/** The replay key of a workload token: its issuer and `jti`, hashed (a `jti` is the issuer's text, of any shape). */
async function replayKey(issuer: string, jti: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${issuer}\n${jti}`));
  return `wl:${Buffer.from(digest).toString('base64url')}`;
}

/** `options.scopes` narrowed within the rule's (narrowing only); `null`: the rule's. */
function askedScopes(options: unknown, rule: WorkloadRuleConfig, checkNarrowing: ExchangeDeps['checkNarrowing']): readonly Scope[] | null {
  if (options === undefined) return rule.scopes;
  if (!isPlainObject(options) || Object.keys(options).some((k) => k !== 'scopes')) {
    throw new ValidationError([{ path: [], message: 'options must be an object { scopes? }' }]);
  }
  if (options.scopes === undefined) return rule.scopes;
  let asked: Scope[];
  try {
    asked = workloadScopes(options.scopes);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(err.issues.map((i) => ({ code: i.code, path: ['scopes', ...i.path], message: i.message })));
  }
  if (rule.scopes !== null) {
    try {
      checkNarrowing(asked, [rule.scopes]);
    } catch (err) {
      if (!(err instanceof ForbiddenError)) throw err;
      throw new ValidationError([{ path: ['scopes'], message: `asks for more than the rule allows (${err.message})` }]);
    }
  }
  return Object.freeze(asked);
}

/** A random token name part: 8 base64url characters. */
function nameSuffix(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString('base64url');
}

/**
 * @internal Build `auth.exchangeWorkloadToken` for one `Auth` instance.
 *
 * @example
 * ```ts
 * const exchange = workloadExchanger(deps);
 * const { token, expiresAt } = await exchange(githubJwt, { scopes: ['acme/api=repo:read'] });
 * ```
 */
export function workloadExchanger(deps: ExchangeDeps): (jwt: string, options?: { scopes?: readonly unknown[] }) => Promise<ExchangedToken> {
  const verifier = new WorkloadVerifier(deps.workloads, deps.clockToleranceSec);
  // Without the store's shared replay cache: this instance's own (one server only).
  const memory = new ReplayCache();
  const shared = typeof deps.store.claimProof === 'function';

  async function exchange(jwt: string, options?: { scopes?: readonly unknown[] }): Promise<ExchangedToken> {
    if (deps.workloads.length === 0) throw new AuthenticationError('issuer', 'workload token refused: no trusted workloads are configured');
    const nowMs = deps.nowMs();
    const verified = await verifier.verify(jwt, Math.floor(nowMs / 1000));
    const rule = matchRule(verified.config, verified.claims);
    const scopes = askedScopes(options, rule, deps.checkNarrowing);
    const { org, name } = rule.account;
    const store = deps.store;
    if (typeof store.readServiceAccount !== 'function') throw new UnavailableError('the token store keeps no service accounts');
    const account = await deps.call('token store', () => store.readServiceAccount?.(org, name));
    if (account === null || account === undefined) throw new ForbiddenError(`service account ${org}/${name} does not exist`);
    if (account.disabled) throw new ForbiddenError(`service account ${org}/${name} is disabled`);
    // Spent last, once everything else held: a refused exchange leaves the token usable for a corrected one.
    const key = await replayKey(verified.config.issuer, verified.jti);
    const until = new Date(verified.exp * 1000);
    const fresh = shared
      ? await deps.call('token store', () => (store.claimProof as NonNullable<TokenStore['claimProof']>)(key, until, new Date(nowMs)))
      : memory.claim(key, until.getTime(), nowMs);
    if (fresh !== true) throw new AuthenticationError('revoked', 'workload token refused: this token was exchanged before');
    const minted = await deps.mint({
      account: rule.account,
      accountId: rule.accountId,
      role: account.role,
      name: `workload-${nameSuffix()}`,
      scopes,
      lifetimeSec: rule.lifetimeSec,
      nowMs,
    });
    return Object.freeze({ ...minted, serviceAccount: rule.account, scopes: scopes === null ? null : [...scopes] });
  }

  return async (jwt, options) => {
    try {
      return await exchange(jwt, options);
    } catch (err) {
      if (err instanceof AuthenticationError && deps.events !== null) {
        const actor = Object.freeze({ kind: 'unknown' as const, userId: null, tokenId: null, tokenName: null });
        deps.events.emit(Object.freeze({ type: 'auth.failed', at: new Date(deps.nowMs()), actor, reason: err.reason }));
      }
      throw err;
    }
  };
}
