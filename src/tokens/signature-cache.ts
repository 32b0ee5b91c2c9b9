/**
 * The verified-signature cache (T2): exact token text -> claims that passed a full
 * verification. It holds no record state (revocation is read per request by the
 * service) and is bounded: the oldest entry goes when it is full.
 * @module
 */
import type { TokenClaims } from './types';

/**
 * Bounded map in insertion order. Internal to the verifier.
 * @example
 * ```ts
 * const cache = new SignatureCache(10_000);
 * cache.set(token, claims); cache.get(token); // claims
 * ```
 */
export class SignatureCache {
  readonly #capacity: number;
  readonly #entries = new Map<string, TokenClaims>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(token: string): TokenClaims | undefined {
    return this.#entries.get(token);
  }

  set(token: string, claims: TokenClaims): void {
    if (this.#capacity === 0) return;
    this.#entries.delete(token);
    while (this.#entries.size >= this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(token, claims);
  }

  clear(): void {
    this.#entries.clear();
  }
}
