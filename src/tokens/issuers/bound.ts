/**
 * The DPoP binding of a trusted issuer's token (RFC 9449 §6): the thumbprint its
 * `cnf.jkt` names, which the request path then checks a proof against.
 * @module
 */
import type { JWTPayload } from 'jose';
import { AuthenticationError, type AuthenticationReason } from '../../errors';

function fail(reason: AuthenticationReason, message: string): AuthenticationError {
  return new AuthenticationError(reason, `authentication failed: ${message}`);
}

// RFC 7638 SHA-256 thumbprint, base64url without padding: 43 characters.
const JKT = /^[A-Za-z0-9_-]{43}$/;

/**
 * @internal The key a DPoP-bound token is bound to (`cnf.jkt`, RFC 9449 §6), else `null`. Any other
 * confirmation (RFC 8705 mTLS `x5t#S256`, a `jwk`) is refused: its proof of possession is
 * one this library never checks, and taken as a bearer token a stolen bound token would work.
 *
 * @example
 * ```ts
 * boundKeyOf({ cnf: { jkt: thumbprint } }); // thumbprint
 * ```
 */
export function boundKeyOf(payload: JWTPayload): string | null {
  if (!Object.hasOwn(payload, 'cnf')) return null;
  const cnf = payload.cnf;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) throw fail('malformed', 'cnf is not an object');
  const keys = Object.keys(cnf);
  const jkt = (cnf as { jkt?: unknown }).jkt;
  if (keys.length !== 1 || typeof jkt !== 'string')
    throw fail('type', 'a sender-constrained token other than DPoP (cnf.jkt) is not accepted');
  if (!JKT.test(jkt)) throw fail('malformed', 'cnf.jkt is not a SHA-256 thumbprint');
  return jkt;
}
