/**
 * The client address of a request as this `Auth` reads it for `allowedIps`
 * (the peer, and behind the proxies of `trustProxy` the client they name),
 * for the code beside the guards that counts or logs clients: the leak
 * endpoints' rate limit. Reached through the `Auth` object (a registry keyed
 * by it, as the session records are), not a public method: one reading of
 * `trustProxy` for everything built on one `Auth`, so the rate limit never
 * counts a proxy where `allowedIps` sees its client.
 * @module
 */
import type { RangeMatcher } from '../core/network';
import type { BearerRequest } from '../tokens';
import { addressOf, addressText } from './authenticate';

/**
 * @internal The client address of `req` as canonical text, or `undefined` when it is not known (a trusted
 * proxy that names no client, a header that cannot be read). `peer`: the connection's address when the
 * request carries none (a fetch `Request`); a node request's socket is read when it is absent. Never throws.
 *
 * @example
 * ```ts
 * const read: ClientAddressReader = (req, peer) => peer; // what an Auth without trustProxy amounts to
 * ```
 */
export type ClientAddressReader = (req: BearerRequest, peer?: string) => string | undefined;

const registry = new WeakMap<object, ClientAddressReader>();

/**
 * @internal The reader of an `Auth` made by `createAuth`, else `undefined`.
 *
 * @example
 * ```ts
 * const address = clientAddressOf(auth)?.(req); // '203.0.113.7' behind a trusted proxy
 * ```
 */
export function clientAddressOf(auth: unknown): ClientAddressReader | undefined {
  return typeof auth === 'object' && auth !== null ? registry.get(auth) : undefined;
}

/**
 * @internal Give `auth` its reader (by `createAuth`, once).
 *
 * @example
 * ```ts
 * registerClientAddress(frozen, opts.trustProxy);
 * ```
 */
export function registerClientAddress(auth: object, trust: RangeMatcher | null): void {
  registry.set(auth, (req, peer) => addressText(addressOf(req, peer, trust)) ?? undefined);
}
