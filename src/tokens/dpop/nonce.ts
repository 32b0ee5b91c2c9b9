/**
 * Server nonces for DPoP proofs at a resource (RFC 9449 §9): stateless and
 * keyed. A nonce is the HMAC-SHA256, under a secret every server shares, of
 * the number of the time slot it was made in; a proof's `nonce` is accepted
 * when it is the current slot's or the one before, so a nonce lives between
 * one and two slots. Nothing is stored: a server that never answered a
 * client takes the nonce another server gave it, and a proof signed ahead
 * of time is useless once its nonce's slots have passed, whatever its `iat`
 * says. A nonce is handed to any client that asks (it is in every 401), so
 * it is compared as the public value it is; the secret keeps the next
 * slot's nonce from being known before a server makes it.
 * @module
 */
import { createHmac } from 'node:crypto';

/** @internal what a resource's nonces are made of: the shared secret (at least 32 bytes) and the slot's length. */
export interface NonceConfig {
  readonly secret: Uint8Array;
  readonly lifetimeSec: number;
}

/**
 * @internal The nonces of one resource: the one to hand out now, and whether a proof's nonce is still taken.
 *
 * @example
 * ```ts
 * const nonces = dpopNonces({ secret, lifetimeSec: 60 });
 * const nonce = nonces.current(nowSec); // sent as DPoP-Nonce
 * nonces.accepts(nonce, nowSec + 90); // true: the slot before the current one
 * ```
 */
export interface DpopNonces {
  /** The nonce of the slot `nowSec` falls in. */
  current(nowSec: number): string;
  /** Is `nonce` the current slot's or the previous one's? */
  accepts(nonce: unknown, nowSec: number): boolean;
}

/** Longest `nonce` claim read (a nonce made here has 43 characters). */
const MAX_NONCE = 256;

// RFC 9449 §8.1: a nonce is NQCHAR (RFC 6749 A.13): printable ASCII but the quote and the backslash, at most MAX_NONCE.
const NONCE_TEXT = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/;

/**
 * @internal Is `value` text a nonce may be (NQCHAR, 1 to 256 characters)? Only such text goes into a
 * `DPoP-Nonce` header or a proof: anything else could split a header or break its quoting.
 *
 * @example
 * ```ts
 * isNonceText('n0nce_-ABC'); // true
 * isNonceText('a"b');        // false
 * ```
 */
export function isNonceText(value: unknown): value is string {
  return typeof value === 'string' && NONCE_TEXT.test(value);
}

/**
 * @internal The nonces made from `config`. The two live ones are kept per slot: a request compares strings,
 * and an HMAC is computed once per slot.
 *
 * @example
 * ```ts
 * const nonces = dpopNonces({ secret: randomBytes(32), lifetimeSec: 60 });
 * nonces.accepts(nonces.current(1_700_000_000), 1_700_000_000); // true
 * ```
 */
export function dpopNonces(config: NonceConfig): DpopNonces {
  const secret = Buffer.from(config.secret);
  const lifetime = config.lifetimeSec;
  let slot = Number.NaN;
  let now = '';
  let before = '';
  const make = (n: number): string => createHmac('sha256', secret).update(`svc-auth dpop nonce ${n}`).digest('base64url');

  function at(nowSec: number): void {
    const s = Math.floor(nowSec / lifetime);
    if (s === slot) return;
    // A clock moved one slot on keeps the nonce it made as the previous one.
    before = s === slot + 1 ? now : make(s - 1);
    now = make(s);
    slot = s;
  }

  return Object.freeze({
    current(nowSec: number): string {
      at(nowSec);
      return now;
    },
    accepts(nonce: unknown, nowSec: number): boolean {
      if (typeof nonce !== 'string' || nonce.length === 0 || nonce.length > MAX_NONCE) return false;
      at(nowSec);
      return nonce === now || nonce === before;
    },
  });
}
