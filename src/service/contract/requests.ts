/**
 * What `authenticate` and `authenticateRequest` take beside the credential:
 * where it is used from; and what a DPoP proof must carry at this resource.
 * @module
 */
/**
 * Where a credential is used from, when `authenticate` is called without a
 * request: the client address (for `allowedIps` and the last-used
 * addresses) and the user agent (for the last-used record).
 *
 * @example
 * ```ts
 * const origin: RequestOrigin = { address: '203.0.113.7', userAgent: 'curl/8.5.0' };
 * await auth.authenticate(token, origin);
 * ```
 */
export interface RequestOrigin {
  /** The client's IP address (IPv4 or IPv6 text). Not an address, or absent: unknown. */
  address?: string | undefined;
  /** The client's `User-Agent`; kept capped at 256 characters, without control characters. */
  userAgent?: string | undefined;
}

/**
 * Options of `auth.authenticateRequest`.
 *
 * @example
 * ```ts
 * // A fetch Request carries no address: hand over the connection's peer (Bun: server.requestIP(request)?.address).
 * const options: AuthenticateRequestOptions = { address: '203.0.113.7' };
 * await auth.authenticateRequest(request, options);
 * ```
 */
export interface AuthenticateRequestOptions {
  /**
   * The address of the connection's peer, for a fetch `Request` (which carries
   * none); a node request's own socket is read when it is absent. `trustProxy`
   * applies to it as to a socket's address.
   */
  address?: string | undefined;
}

/**
 * Server nonces for DPoP proofs at this resource (RFC 9449 §9), `createAuth`'s `dpopNonce`. With them, a
 * proof is accepted only with a `nonce` this resource handed out: a proof made ahead of time (by a client
 * whose key was stolen for a while, say) is useless once its nonce has passed, whatever its `iat` says. A
 * proof without one is refused with reason `dpop_nonce`: 401 `error="use_dpop_nonce"` and the nonce in
 * `DPoP-Nonce`, which clients retry with; the guards also send the current nonce with every answer to a
 * DPoP request, so a client that keeps the newest never meets that refusal again. Nonces are stateless
 * (an HMAC of the time slot): every server given the same secret takes every other's.
 *
 * @example
 * ```ts
 * import { createAuth, generateKeyRing, type AuthOptions } from 'svc-auth';
 * const dpopNonce: AuthOptions['dpopNonce'] = { secret: process.env.DPOP_NONCE_SECRET ?? '', lifetimeSec: 60 };
 * const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({}) }, dpopNonce });
 * ```
 */
export interface DpopNonceOptions {
  /** At least 32 bytes (a string is read as UTF-8), the same on every server; keep it secret, like a signing key. */
  secret: string | Uint8Array;
  /** How long a nonce is handed out, in seconds, from 10 to 3 600 (default 60); it is taken for twice that at most. */
  lifetimeSec?: number;
}
