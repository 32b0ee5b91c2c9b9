/**
 * How the request path reads a token's record chain from the store (T5): at
 * once from a store that holds its records in this process, else through a
 * promise, and for the request path itself as the store's shared frozen views
 * when it offers them (stores/views.ts). Every failure is `UnavailableError`.
 * @module
 */
import { SHARED_CHAIN, SHARED_READ, type SharedChainSource, type SharedReadSource, type TokenRecord, type TokenStore } from '../../stores';
import { failure } from '../deadlines';
import { checkChain, type ChainClaims } from './chain';

/** @internal the three reads of one Auth instance's request path. */
export interface ChainReads {
  /** Read and check a chain through `readChain`, under the service's deadline (fresh copies: for management). */
  readonly readValidChain: (claims: ChainClaims, at: number) => Promise<readonly TokenRecord[]>;
  /** Read and check a chain for `authenticate`: shared views when the store offers them. */
  readonly readRequestChain: (claims: ChainClaims, at: number) => Promise<readonly TokenRecord[]>;
  /** The chain at once, from a store that can answer without a promise; `undefined` when it declines. */
  readonly readChainNow: (jti: string) => readonly TokenRecord[] | null | undefined;
}

/**
 * @internal The reads of `store`; `call` runs a store call under the service's
 * deadline of `timeoutMs`.
 *
 * @example
 * ```ts
 * const reads = chainReads(store, call, 5000);
 * const chain = reads.readChainNow(claims.jti) ?? (await reads.readRequestChain(claims, Date.now()));
 * ```
 */
export function chainReads(
  store: TokenStore,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
  timeoutMs: number,
): ChainReads {
  async function readValidChain(claims: ChainClaims, at: number): Promise<readonly TokenRecord[]> {
    const chain = await call('token store', () => store.readChain(claims.jti));
    return checkChain(chain, claims, at);
  }

  // The request path's own read: the store's shared views when it offers them
  // (stores/views.ts; nothing on the request path hands a record on), else
  // readChain. A store that answers SHARED_READ bounds the read itself within
  // timeoutMs and rejects on every failure, so no second deadline (a promise,
  // four microtask ticks and a timer per request) is armed here; anything it
  // throws or rejects with is still UnavailableError (T5).
  const sharedRead = (store as SharedReadSource)[SHARED_READ];
  async function readRequestChain(claims: ChainClaims, at: number): Promise<readonly TokenRecord[]> {
    let own: Promise<TokenRecord[] | null> | undefined;
    try {
      own = typeof sharedRead === 'function' ? sharedRead.call(store, claims.jti, timeoutMs) : undefined;
    } catch (err) {
      throw failure(err, 'token store');
    }
    let chain: TokenRecord[] | null;
    if (own === undefined) chain = await call('token store', () => store.readChain(claims.jti));
    else {
      try {
        chain = await own;
      } catch (err) {
        throw failure(err, 'token store');
      }
    }
    return checkChain(chain, claims, at);
  }

  // The store's shared views (stores/views.ts), when it offers them: the request
  // path only reads the records it is given and hands none on (principals carry
  // ids, names and a fresh expiry Date), so a copy per request bought nothing.
  const shared = (store as SharedChainSource)[SHARED_CHAIN];

  /**
   * A store that offers `readChainSync` answers without a promise and a
   * deadline per request; `undefined` means it declined (then `readChain`).
   * Any throw fails closed as `UnavailableError` (T5).
   */
  function readChainNow(jti: string): readonly TokenRecord[] | null | undefined {
    try {
      if (typeof shared === 'function') {
        const chain = shared.call(store, jti);
        if (chain !== undefined) return chain;
      }
      if (typeof store.readChainSync !== 'function') return undefined;
      return store.readChainSync(jti);
    } catch (err) {
      throw failure(err, 'token store');
    }
  }

  return { readValidChain, readRequestChain, readChainNow };
}
