/**
 * Leaked access tokens of a recorded trusted issuer: the authorization
 * server of `svc-auth/oauth` built on this `Auth` (`trustedIssuerFor` sets
 * `recorded`). They are this service's own: each has a session record (id =
 * its `jti`) under its grant's record in this `Auth`'s token store. A leaked
 * one ends its whole grant: the grant's record is revoked with its subtree
 * (every access token of the grant), and the server refuses the grant's
 * refresh token from then on (a refresh mints an access token, whose record
 * cannot be written under a revoked grant, and the server then drops the
 * grant).
 *
 * Verified whatever resource the token was minted for (`aud` is not pinned
 * here): `/api`'s `Auth` and `/mcp`'s share one issuer and one store, and a
 * token leaked from either is reported wherever its finder can reach.
 * Tokens of an issuer that is not recorded (a company's identity provider)
 * are not ours to end: they stay `foreign`.
 * @module
 */
import { AuthenticationError } from '../../errors';
import { IssuerVerifier, type IssuerClaims, type IssuerConfig } from '../../tokens';

/**
 * @internal what a recorded issuer's token is: its claims (`jti` set), `'expired'` (ours, nothing to end), or `'foreign'`.
 *
 * @example
 * ```ts
 * const verdict: RecordedVerdict = 'foreign'; // signed by no key of the issuer
 * ```
 */
export type RecordedVerdict = (IssuerClaims & { readonly jti: string }) | 'expired' | 'foreign';

/**
 * @internal The check of one string against the recorded issuers of an `Auth`: `undefined`
 * when the string is no issuer's token at all (svc-auth's own verifier answers for it),
 * else its verdict. `null` when the `Auth` trusts no recorded issuer.
 *
 * @example
 * ```ts
 * const recorded = recordedIssuers(opts.trustedIssuers, { ownIssuer: opts.issuer, clockToleranceSec: 5 });
 * const verdict = recorded === null ? undefined : await recorded(token, Math.floor(Date.now() / 1000));
 * ```
 */
export function recordedIssuers(
  issuers: readonly IssuerConfig[],
  o: { readonly ownIssuer: string; readonly clockToleranceSec: number },
): ((text: string, nowSec: number) => Promise<RecordedVerdict> | undefined) | null {
  const recorded = issuers.filter((i) => i.recorded);
  if (recorded.length === 0) return null;
  // A verifier of its own, without a cache (as the own path's): a leaked token's claims have
  // no business in the request path's cache. The user id is checked against the records.
  const verifier = new IssuerVerifier({
    issuers: recorded,
    ownIssuer: o.ownIssuer,
    clockToleranceSec: o.clockToleranceSec,
    cacheSize: 0,
    isUserId: () => true,
    anyAudience: true,
  });
  return (text, nowSec) => {
    const routed = verifier.route(text, nowSec);
    if (routed === undefined) return undefined;
    return routed.then(
      (claims): RecordedVerdict => (claims.jti === null ? 'foreign' : (claims as IssuerClaims & { jti: string })),
      (err: unknown): RecordedVerdict => {
        // An outage of the issuer's keys is no verdict: the caller hears it (never a guess).
        if (!(err instanceof AuthenticationError)) throw err;
        // jose checks `exp` after the signature: an expired token here was signed by the issuer.
        return err.reason === 'expired' ? 'expired' : 'foreign';
      },
    );
  };
}
