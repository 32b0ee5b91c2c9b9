/**
 * The memory replay cache of DPoP proofs (RFC 9449 §11.1): each proof's key
 * (the thumbprint and the `jti`) is taken once until the proof falls out of
 * the window. One per `Auth` instance, used when the token store offers no
 * shared one (`TokenStore.claimProof`).
 * @module
 */

/** Most proofs remembered at once: beyond it, with none expired, a new proof is refused (fail closed, never forget early). */
const DEFAULT_CAPACITY = 100_000;

/**
 * @internal `claim(key, expiresAtMs, nowMs)`: true the first time a key is seen while unexpired, false after.
 *
 * @example
 * ```ts
 * const seen = new ReplayCache();
 * seen.claim('jkt:jti', Date.now() + 300_000, Date.now()); // true
 * seen.claim('jkt:jti', Date.now() + 300_000, Date.now()); // false
 * ```
 */
export class ReplayCache {
  readonly #until = new Map<string, number>();
  readonly #capacity: number;

  constructor(capacity = DEFAULT_CAPACITY) {
    this.#capacity = capacity;
  }

  claim(key: string, expiresAtMs: number, nowMs: number): boolean {
    const known = this.#until.get(key);
    if (known !== undefined && known > nowMs) return false;
    if (known === undefined && this.#until.size >= this.#capacity) {
      this.#sweep(nowMs);
      if (this.#until.size >= this.#capacity) return false;
    }
    this.#until.set(key, expiresAtMs);
    return true;
  }

  #sweep(nowMs: number): void {
    for (const [key, until] of this.#until) if (until <= nowMs) this.#until.delete(key);
  }
}
