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
  // Keyed by the token's last characters (part of its signature), not its whole
  // text: a request brings a new string whose hash V8 must compute, and hashing
  // 300+ characters was the largest single cost of a hot authenticate. The full
  // text is still compared on every hit, so a different token with the same tail
  // is a miss (then verified in full), never a hit.
  readonly #entries = new Map<string, { readonly token: string; readonly claims: TokenClaims }>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(token: string): TokenClaims | undefined {
    const entry = this.#entries.get(keyOf(token));
    return entry !== undefined && entry.token === token ? entry.claims : undefined;
  }

  set(token: string, claims: TokenClaims): void {
    if (this.#capacity === 0) return;
    const key = keyOf(token);
    this.#entries.delete(key);
    while (this.#entries.size >= this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { token, claims });
  }

  clear(): void {
    this.#entries.clear();
  }
}

// 43 base64url characters are 256 bits: all of an HS256 tag, half of an
// EdDSA or ES256 signature. Unguessable without the token, so only a holder of
// the token could make two tokens share a key, and that only costs a miss.
const KEY_CHARS = 43;

function keyOf(token: string): string {
  return token.length <= KEY_CHARS ? token : token.slice(token.length - KEY_CHARS);
}
