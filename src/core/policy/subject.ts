/**
 * Who a decision is about. The service layer builds a {@link Principal} when it
 * authenticates a credential and attaches the compiled grant to it under a
 * private, non-enumerable slot, so that `authorize(principal, …)` is a lookup
 * and a copy of the principal (spread, JSON, structuredClone) carries no grant
 * and is refused as `invalid` (A1).
 * @module
 */

/**
 * An authenticated caller, as returned by `auth.authenticate`. Opaque for
 * `authorize`: pass the very object you received.
 *
 * @example
 * ```ts
 * const p = await auth.authenticate(token);
 * p.kind;   // 'pat'
 * auth.authorize(p, 'acme/web', 'repo:read');
 * ```
 */
export interface Principal {
  readonly kind: 'session' | 'pat' | 'component';
  readonly userId: string;
  readonly tokenId?: string;
  readonly tokenName?: string;
  readonly expiresAt: Date;
  readonly committerIdentity?: string;
}

/** @internal the private slot; not exported from the package root. */
export const GRANT_SLOT: unique symbol = Symbol('svc-auth.grant');
