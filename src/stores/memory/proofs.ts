/**
 * The memory store's replay cache of DPoP proofs (`TokenStore.claimProof`).
 * @module
 */
// Swept when it grows past this many keys; unexpired keys are never dropped early.
const SWEEP_AT = 10_000;

/**
 * @internal proof keys with their expiry, shared by every `Auth` given the same memory store.
 *
 * @example
 * ```ts
 * const proofs = new ProofKeys();
 * proofs.claim('k', new Date(Date.now() + 60_000), new Date()); // true, then false
 * ```
 */
export class ProofKeys {
  readonly #until = new Map<string, number>();
  #sweepAt = SWEEP_AT;

  claim(key: string, expiresAt: Date, now: Date): boolean {
    return this.claimMs(key, expiresAt.getTime(), now.getTime());
  }

  /** {@link claim} in milliseconds since the epoch (the request path's, with no `Date` made). */
  claimMs(key: string, untilMs: number, nowMs: number): boolean {
    const known = this.#until.get(key);
    if (known !== undefined && known > nowMs) return false;
    if (this.#until.size >= this.#sweepAt) {
      for (const [k, until] of this.#until) if (until <= nowMs) this.#until.delete(k);
      this.#sweepAt = Math.max(SWEEP_AT, this.#until.size * 2);
    }
    this.#until.set(key, untilMs);
    return true;
  }
}
