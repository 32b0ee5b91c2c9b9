/**
 * What `authenticate` and `authenticateRequest` take beside the credential:
 * where it is used from.
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
