/**
 * The verified-signature cache (T2): exact token text -> claims that passed a full
 * verification. It holds no record state (revocation is read per request by the
 * service) and is bounded: the oldest entry goes when it is full.
 * @module
 */
import type { TokenClaims } from './types';

/**
 * Bounded map in insertion order. Internal to the verifiers (`T`: what a full
 * verification found; svc-auth's own claims by default).
 * @example
 * ```ts
 * const cache = new SignatureCache(10_000);
 * cache.set(token, claims); cache.get(token); // claims
 * ```
 */
export class SignatureCache<T = TokenClaims> {
  readonly #capacity: number;
  // Keyed by the token's last characters (part of its signature), not its whole
  // text: a request brings a new string whose hash V8 must compute, and hashing
  // 300+ characters was the largest single cost of a hot authenticate. The full
  // text is still compared on every hit, so a different token with the same tail
  // is a miss (then verified in full), never a hit.
  readonly #entries = new Map<number, { readonly token: string; readonly claims: T }>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(token: string): T | undefined {
    const entry = this.#entries.get(keyOf(token));
    return entry !== undefined && entry.token === token ? entry.claims : undefined;
  }

  set(token: string, claims: T): void {
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

// The key is a 52-bit hash of the token's last 16 characters (96 bits of its
// signature), as a number: the Map neither slices the token nor hashes a
// string per request. 52 bits keep keys distinct across a full cache (a 32-bit
// key already collides about once in 100 000 tokens). Two tokens that share a
// key only cost a miss: the full text is compared on every hit, and a token is
// cached only after it verified in full.
const KEY_CHARS = 16;

function keyOf(token: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = Math.max(0, token.length - KEY_CHARS); i < token.length; i++) {
    const c = token.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13);
  }
  return (a >>> 0) * 0x100000 + (b >>> 12);
}
