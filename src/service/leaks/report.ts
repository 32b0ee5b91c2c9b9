/**
 * `auth.reportLeaked`: whoever holds a leaked token may kill it. Each string
 * that verifies as a token of this instance (signature, issuer, claims: any
 * kind) and whose record chain is active is revoked with its subtree (T6),
 * and its owner hears one `token.leaked` event. An access token of a
 * recorded trusted issuer (this `Auth`'s own authorization server) ends its
 * whole grant (recorded.ts). Everything else is counted.
 *
 * Cost is bounded by the input: at most 1 000 strings, each refused above
 * 8 KiB before it is parsed, repeats judged once. Only a string whose
 * signature verifies reaches the store, so a flood of forged tokens costs
 * signature checks and never a store call.
 * @module
 */
import { AuthenticationError } from '../../errors';
import type { TokenRecord, TokenStore } from '../../stores';
import {
  expiredClaimsOf,
  LIFETIMES,
  MAX_TOKEN_CHARS,
  TokenVerifier,
  type IssuerConfig,
  type KeyRing,
  type TokenClaims,
} from '../../tokens';
import { leakedEvent, type EventDispatcher } from '../events';
import { failure as failureOf } from '../deadlines';
import { checkLeakInput } from './input';
import { recordedIssuers, type RecordedVerdict } from './recorded';
import type { LeakOutcome, LeakReport, ReportLeakedOptions } from './types';

/** Strings judged at once: enough to overlap store round trips, few enough to bound a call's load on the store. */
const PARALLEL = 8;

/** The claims a record chain is read for (as `authenticate` reads it). */
interface ChainQuery {
  readonly kind: 'pat' | 'component' | 'session';
  readonly sub: string;
  readonly jti: string;
  readonly exp: number;
}

/** @internal what the reporter needs of its `Auth` instance. */
export interface LeakDeps {
  readonly issuer: string;
  readonly keys: KeyRing;
  readonly clockToleranceSec: number;
  /** The `Auth`'s trusted issuers: the tokens of the recorded ones (its own authorization server's) are revoked with their grant. */
  readonly trustedIssuers: readonly IssuerConfig[];
  readonly store: TokenStore;
  readonly nowMs: () => number;
  readonly call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>;
  readonly events: EventDispatcher | null;
  /**
   * The request path's check of a recorded issuer's token (its record under its grant's, both its user's,
   * both live): the chain `[token, grant]`, or `AuthenticationError` (`unknown`, `revoked`, `expired`).
   */
  readonly readGrantChain: (claims: { jti: string; sub: string; exp: number }, at: number) => Promise<readonly TokenRecord[]>;
  /** `authenticate`'s own chain check (T5): the active chain, or `AuthenticationError` (`unknown`, `revoked`, `expired`). */
  readonly readValidChain: (claims: ChainQuery, at: number) => Promise<readonly TokenRecord[]>;
}

type Judged = { outcome: 'revoked'; id: string } | { outcome: 'inactive' | 'foreign' };

const FOREIGN: Judged = Object.freeze({ outcome: 'foreign' });
const INACTIVE: Judged = Object.freeze({ outcome: 'inactive' });

/**
 * @internal `reportLeaked` of one `Auth` instance.
 *
 * @example
 * ```ts
 * const reportLeaked = leakReporter({ issuer, keys, clockToleranceSec: 5, trustedIssuers: [], store, nowMs, call, events, readGrantChain, readValidChain });
 * await reportLeaked(['eyJ…'], { source: 'http' }); // { received: 1, revoked: 1, ignored: 0, … }
 * ```
 */
export function leakReporter(deps: LeakDeps): (tokens: readonly string[], options: ReportLeakedOptions) => Promise<LeakReport> {
  // A verifier of its own, without a cache: a leaked token's claims have no
  // business in the request path's cache, and the cache would spare nothing here.
  const verifier = new TokenVerifier({
    ring: deps.keys,
    issuer: deps.issuer,
    clockToleranceSec: deps.clockToleranceSec,
    cacheSize: 0,
    maxLifetimeSec: { pat: LIFETIMES.pat.maxSec, session: LIFETIMES.session.maxSec, component: LIFETIMES.component.maxSec },
  });

  async function verified(text: string, nowSec: number): Promise<TokenClaims | 'expired' | undefined> {
    if (text.length === 0 || text.length > MAX_TOKEN_CHARS) return undefined;
    try {
      return await verifier.verify(text, nowSec);
    } catch (err) {
      // An expired token verified (signature, issuer, claims) before its time was found over: ours, inactive.
      return expiredClaimsOf(err) === undefined ? undefined : 'expired';
    }
  }

  const recorded = recordedIssuers(deps.trustedIssuers, { ownIssuer: deps.issuer, clockToleranceSec: deps.clockToleranceSec });

  /** Revoke `head` with its subtree, and say so in one `token.leaked` event. */
  async function revoke(head: TokenRecord, at: number, source: string, url: string | null): Promise<Judged> {
    const got = await deps.call('token store', () => deps.store.revoke([head.id], new Date(at)));
    const revokedIds = Array.isArray(got) ? got.filter((id): id is string => typeof id === 'string') : [];
    // Revoked by someone else between the read and now: nothing was revoked here.
    if (!revokedIds.includes(head.id)) return INACTIVE;
    deps.events?.emit(leakedEvent(new Date(at), { source, url }, head, revokedIds));
    return { outcome: 'revoked', id: head.id };
  }

  /** An access token of a recorded issuer: its grant's record is revoked, and every token of the grant with it. */
  async function judgeIssued(verdict: RecordedVerdict, at: number, source: string, url: string | null): Promise<Judged> {
    if (verdict === 'foreign') return FOREIGN;
    if (verdict === 'expired') return INACTIVE;
    let chain: readonly TokenRecord[];
    try {
      chain = await deps.readGrantChain({ jti: verdict.jti, sub: verdict.userId, exp: verdict.exp }, at);
    } catch (err) {
      if (err instanceof AuthenticationError) return INACTIVE;
      throw err;
    }
    return revoke(chain[1] as TokenRecord, at, source, url);
  }

  async function judge(text: string, at: number, source: string, url: string | null): Promise<Judged> {
    if (text.length === 0 || text.length > MAX_TOKEN_CHARS) return FOREIGN;
    const issued = recorded?.(text, Math.floor(at / 1000));
    if (issued !== undefined) return judgeIssued(await issued, at, source, url);
    const claims = await verified(text, Math.floor(at / 1000));
    if (claims === undefined) return FOREIGN;
    if (claims === 'expired') return INACTIVE;
    let chain: readonly TokenRecord[];
    try {
      // A session is read like the other kinds and revoked like them; a session minted before
      // sessions had records has nothing to revoke (inactive). The chain check compares the record's kind with the token's, so no record of another kind
      // can answer for it.
      chain = await deps.readValidChain({ kind: claims.kind, sub: claims.sub, jti: claims.jti, exp: claims.exp }, at);
    } catch (err) {
      if (err instanceof AuthenticationError) return INACTIVE;
      throw err; // the store failed: UnavailableError, never a guess
    }
    return revoke(chain[0] as TokenRecord, at, source, url);
  }

  return async function reportLeaked(tokens, options) {
    const input = checkLeakInput(tokens, options);
    const at = deps.nowMs();
    const distinct = [...new Set(input.tokens)];
    const judged = new Map<string, Judged>();
    let failure: unknown;
    for (let i = 0; i < distinct.length; i += PARALLEL) {
      const batch = distinct.slice(i, i + PARALLEL);
      const settled = await Promise.allSettled(batch.map((t) => judge(t, at, input.source, input.url)));
      settled.forEach((s, j) => {
        if (s.status === 'fulfilled') judged.set(batch[j] as string, s.value);
        else failure ??= s.reason;
      });
      // What was revoked stays revoked and its events are out; the caller learns that the rest failed.
      if (failure !== undefined) throw failureOf(failure, 'token store');
    }
    const outcomes: LeakOutcome[] = input.tokens.map((t) => (judged.get(t) as Judged).outcome);
    const revokedIds: string[] = [];
    for (const t of distinct) {
      const j = judged.get(t) as Judged;
      if (j.outcome === 'revoked') revokedIds.push(j.id);
    }
    return Object.freeze({
      received: input.tokens.length,
      revoked: revokedIds.length,
      ignored: input.tokens.length - revokedIds.length,
      revokedIds: Object.freeze(revokedIds),
      outcomes: Object.freeze(outcomes),
    });
  };
}
