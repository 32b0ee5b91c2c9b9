/**
 * The optional replay cache a token store may share among servers: the DPoP
 * proofs (RFC 9449 §11.1) a request path has taken, each until it expires.
 * @module
 */

/**
 * The part of a `TokenStore` that remembers DPoP proofs. Without it, each `Auth` instance keeps its own
 * replay cache in memory, which stops a replay to the same server only: give it to every server behind one
 * load balancer (the PostgreSQL store has it) so that a proof taken by one is refused by all.
 *
 * @example
 * not-checked: an outline; the memory and PostgreSQL stores implement it
 * ```ts
 * class MyStore implements TokenStore {
 *   async claimProof(key, expiresAt, now) { return insertUnlessUnexpired(key, expiresAt, now); }
 * }
 * ```
 */
export interface ProofReplayStore {
  /**
   * Optional: take the proof `key` (at most 300 characters: a key thumbprint and the proof's `jti`)
   * until `expiresAt`. Resolves `true` the first time, and `false` while an earlier claim of the same
   * key is unexpired at `now`, atomically across every caller sharing the store. Expired keys may be
   * forgotten.
   */
  claimProof?(key: string, expiresAt: Date, now: Date): Promise<boolean>;
}
