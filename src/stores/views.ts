/**
 * Shared frozen record views for the request path. `readChain` hands every
 * caller fresh copies (a `Date` can be changed with `setTime`, so a caller must
 * never hold what another caller sees). The service's own request path only
 * reads the records it is given, and never hands them on: for it a store may
 * keep one frozen view per record and hand the same view out again while the
 * record is unchanged. A fresh copy per request (`toRecord`: an object, two to
 * four `Date`s, the `usedFrom` entries) was the largest share of svc-auth's
 * own time in a guarded server's profile.
 *
 * The views never leave the library: only the service asks for them, through a
 * module-private symbol that the package root does not export, and the public
 * `readChain`/`readChainSync` keep copying.
 * @module
 */
import { toRecord, type Entry } from './record-codec';
import type { TokenRecord } from './types';
import type { ServiceAccountRecord } from './service-accounts';

/**
 * @internal The method a store offers for the service's request path: the same
 * answer as `readChainSync` (`undefined` to decline), as shared frozen views
 * that the caller must only read.
 *
 * @example
 * ```ts
 * const chain = (store as SharedChainSource)[SHARED_CHAIN]?.(jti);
 * ```
 */
export const SHARED_CHAIN: unique symbol = Symbol('svc-auth.sharedChain');

/**
 * @internal A store that can answer {@link SHARED_CHAIN}.
 *
 * @example
 * ```ts
 * const source = store as SharedChainSource;
 * if (typeof source[SHARED_CHAIN] === 'function') source[SHARED_CHAIN](jti);
 * ```
 */
export interface SharedChainSource {
  [SHARED_CHAIN]?(id: string): readonly TokenRecord[] | null | undefined;
}

/**
 * @internal The asynchronous twin of {@link SHARED_CHAIN}, for a store whose
 * records live elsewhere (PostgreSQL): `readChain`'s answer as shared frozen
 * views, or `undefined` to decline (then the service calls `readChain` under
 * its own deadline). A store answers only when it bounds the read itself
 * within `withinMs` and rejects on every failure: the caller arms no timer.
 *
 * @example
 * ```ts
 * const chain = await ((store as SharedReadSource)[SHARED_READ]?.(jti, 5000) ?? store.readChain(jti));
 * ```
 */
export const SHARED_READ: unique symbol = Symbol('svc-auth.sharedRead');

/**
 * @internal A store that can answer {@link SHARED_READ}.
 *
 * @example
 * ```ts
 * const read = (store as SharedReadSource)[SHARED_READ];
 * ```
 */
export interface SharedReadSource {
  [SHARED_READ]?(id: string, withinMs: number): Promise<TokenRecord[] | null> | undefined;
}

interface Held {
  entry: Entry;
  // What can change on an entry (`TokenTable` replaces arrays, never edits them):
  // a view is handed out again only while all of it is as it was.
  revokedAt: number | null;
  lastUsedAt: number | null;
  usedFrom: Entry['usedFrom'];
  expiryWarnings: Entry['expiryWarnings'];
  orgAccess: Entry['orgAccess'];
  view: TokenRecord;
}

/**
 * @internal At most `max` views by record id (the oldest first out): a flood of
 * distinct tokens costs copies, never memory. A view is checked against its
 * entry on every use (the same entry object, the same revocation, last use,
 * addresses and warnings), so a revocation is seen on the very next read
 * without anyone having to remember to drop the view.
 *
 * @example
 * ```ts
 * const views = new RecordViews(10_000);
 * views.of(entry) === views.of(entry); // true while the entry is unchanged
 * ```
 */
export class RecordViews {
  readonly #map = new Map<string, Held>();

  constructor(readonly max: number) {}

  /** How many views are held (never more than `max`). */
  get size(): number {
    return this.#map.size;
  }

  /** Drop the view of a record that is gone (purged), so it is not held until evicted. */
  forget(id: string): void {
    this.#map.delete(id);
  }

  /** The frozen view of `e` as it is now. */
  of(e: Entry): TokenRecord {
    const held = this.#map.get(e.id);
    if (
      held !== undefined &&
      held.entry === e &&
      held.revokedAt === e.revokedAt &&
      held.lastUsedAt === e.lastUsedAt &&
      held.usedFrom === e.usedFrom &&
      held.expiryWarnings === e.expiryWarnings &&
      held.orgAccess === e.orgAccess
    ) {
      return held.view;
    }
    const view = toRecord(e);
    if (held !== undefined) {
      held.entry = e;
      held.revokedAt = e.revokedAt;
      held.lastUsedAt = e.lastUsedAt;
      held.usedFrom = e.usedFrom;
      held.expiryWarnings = e.expiryWarnings;
      held.orgAccess = e.orgAccess;
      held.view = view;
    } else if (this.max > 0) {
      if (this.#map.size >= this.max) this.#map.delete(this.#map.keys().next().value as string);
      this.#map.set(e.id, {
        entry: e,
        revokedAt: e.revokedAt,
        lastUsedAt: e.lastUsedAt,
        usedFrom: e.usedFrom,
        expiryWarnings: e.expiryWarnings,
        orgAccess: e.orgAccess,
        view,
      });
    }
    return view;
  }
}

/**
 * @internal The replay claim of a store that keeps its proofs in this process (the memory store): the
 * same answer as `claimProof`, without a promise and a deadline per request; `undefined` to decline
 * (then the service calls `claimProof` under its deadline).
 *
 * @example
 * ```ts
 * const fresh = (store as ClaimNowSource)[CLAIM_NOW]?.(key, expiresAtMs, Date.now());
 * ```
 */
export const CLAIM_NOW: unique symbol = Symbol('svc-auth.claimNow');

/**
 * @internal A store that can answer {@link CLAIM_NOW}.
 *
 * @example
 * ```ts
 * const claim = (store as ClaimNowSource)[CLAIM_NOW];
 * ```
 */
export interface ClaimNowSource {
  [CLAIM_NOW]?(key: string, expiresAtMs: number, nowMs: number): boolean | undefined;
}

/**
 * @internal `readServiceAccount` for the request path, from a store that bounds
 * the read itself within `withinMs` and rejects on every failure (PostgreSQL,
 * whose account reads ride on its chain reads' batches): the caller arms no
 * deadline of its own, as for {@link SHARED_READ}. `undefined` to decline (then
 * `readServiceAccount` under the service's deadline).
 *
 * @example
 * ```ts
 * const account = await ((store as BoundedAccountSource)[BOUNDED_ACCOUNT]?.('acme', 'ci-bot', 5000) ?? store.readServiceAccount?.('acme', 'ci-bot'));
 * ```
 */
export const BOUNDED_ACCOUNT: unique symbol = Symbol('svc-auth.boundedAccount');

/**
 * @internal A store that can answer {@link BOUNDED_ACCOUNT}.
 *
 * @example
 * ```ts
 * const read = (store as BoundedAccountSource)[BOUNDED_ACCOUNT];
 * ```
 */
export interface BoundedAccountSource {
  [BOUNDED_ACCOUNT]?(org: string, name: string, withinMs: number): Promise<ServiceAccountRecord | null> | undefined;
}
