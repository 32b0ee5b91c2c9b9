/**
 * How `authenticate` reports a refusal: the error it throws (with the token's
 * id when the signature verified, never its value) and the `auth.failed`
 * event it queues.
 * @module
 */
import { AuthenticationError, ForbiddenError } from '../../errors';
import { expiredClaimsOf, type TokenClaims } from '../../tokens';
import type { EventActor, EventDispatcher } from '../events';

/**
 * @internal The reporter of one Auth instance: `(err, verified) => the error
 * to throw`. A refusal leaving `authenticate`: when the signature verified,
 * the error carries the token id, and `auth.failed` is queued. An expired
 * token is known too: its signature verified before its time was found to be
 * over (the verifier keeps its claims beside the error). A genuine token used
 * from an address its `allowedIps` do not hold is `auth.failed` with reason
 * `ip`.
 *
 * @example
 * ```ts
 * const refused = refusalReporter(events, nowMs);
 * try { ... } catch (err) { throw refused(err, claims); }
 * ```
 */
export function refusalReporter(
  events: EventDispatcher | null,
  nowMs: () => number,
): (err: unknown, verified: TokenClaims | undefined) => unknown {
  /** The time of an event: a failing clock must not turn a refusal into something else. */
  const eventTime = (): Date => {
    try {
      return new Date(nowMs());
    } catch {
      return new Date();
    }
  };
  return (err, verified) => {
    if (err instanceof ForbiddenError && err.reason === 'ip') {
      if (events !== null && verified !== undefined) {
        const actor: EventActor = { kind: verified.kind, userId: verified.sub, tokenId: verified.jti, tokenName: null };
        events.emit(Object.freeze({ type: 'auth.failed', at: eventTime(), actor: Object.freeze(actor), reason: 'ip' }));
      }
      return err;
    }
    if (!(err instanceof AuthenticationError)) return err;
    const claims = verified ?? expiredClaimsOf(err);
    // Its signature verified, and every kind has a record (sessions too): its id traces it.
    const out =
      claims !== undefined && err.tokenId === undefined
        ? new AuthenticationError(err.reason, err.message, {
            cause: err.cause,
            tokenId: claims.jti,
            ...(err.dpopNonce === undefined ? {} : { dpopNonce: err.dpopNonce }),
          })
        : err;
    if (events !== null) {
      const actor: EventActor =
        claims === undefined
          ? { kind: 'unknown', userId: null, tokenId: null, tokenName: null }
          : { kind: claims.kind, userId: claims.sub, tokenId: claims.jti, tokenName: null };
      events.emit(Object.freeze({ type: 'auth.failed', at: eventTime(), actor: Object.freeze(actor), reason: err.reason }));
    }
    return out;
  };
}
