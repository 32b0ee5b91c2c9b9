/**
 * The checks `authenticate` makes on a token's record chain (T5): the record
 * belongs to this very JWT, the chain is whole, and nothing in it is revoked or
 * expired. Every failure is fail-closed.
 * @module
 */
import { AuthenticationError, SvcAuthError, UnavailableError } from '../../errors';
import type { TokenRecord } from '../../stores';

/**
 * What the chain is checked against: the verified claims, or a principal being re-checked.
 *
 * @example
 * ```ts
 * const claims: ChainClaims = { kind: 'pat', sub: 'alice', jti: 'q0Zr…', exp: 1767225600 };
 * ```
 */
export interface ChainClaims {
  readonly kind: 'pat' | 'component' | 'session';
  /** User id (`sub`). */
  readonly sub: string;
  /** Record id (`jti`). */
  readonly jti: string;
  /** Expiry, whole seconds; the record must carry the same value. */
  readonly exp: number;
}

function isRecordShaped(r: unknown): r is TokenRecord {
  if (typeof r !== 'object' || r === null) return false;
  const o = r as Record<string, unknown>;
  return (
    typeof o.id === 'string' &&
    typeof o.ownerId === 'string' &&
    (o.parentId === null || typeof o.parentId === 'string') &&
    o.expiresAt instanceof Date &&
    (o.revokedAt === null || o.revokedAt instanceof Date) &&
    (o.scopes === null || Array.isArray(o.scopes))
  );
}

/**
 * Why a session without a record is refused, in words its holder can act on.
 * Sessions minted before sessions had records have none, and neither has a
 * session whose store forgot it (a memory store after a restart). Either is
 * refused rather than trusted until it expires: a session nobody can revoke
 * is what records exist to end (docs/concepts.md, "Sessions").
 */
const SESSION_NOT_ON_RECORD =
  'this session is not on record (minted before sessions had records, or its token store lost it): sign in again';

/**
 * Check a chain read for `claims` (nearest first) and return it. Throws
 * `AuthenticationError` with reason `unknown` (no record, another token's
 * record, a different kind, owner or expiry, a broken chain, a session record
 * with a parent), `revoked` (any record revoked) or `expired` (any record
 * expired at `nowMs`); a chain that is not made of records is
 * `UnavailableError` (a faulty store).
 *
 * @example
 * ```ts
 * const chain = checkChain(await store.readChain(claims.jti), claims, Date.now());
 * ```
 */
export function checkChain(chain: unknown, claims: ChainClaims, nowMs: number): readonly TokenRecord[] {
  if (chain === null || chain === undefined) {
    throw claims.kind === 'session' ? new AuthenticationError('unknown', SESSION_NOT_ON_RECORD) : new AuthenticationError('unknown');
  }
  if (!Array.isArray(chain) || !chain.every(isRecordShaped)) {
    throw new UnavailableError('token store returned something that is not a record chain');
  }
  try {
    const head = chain[0];
    if (head === undefined || head.id !== claims.jti || head.kind !== claims.kind) throw new AuthenticationError('unknown');
    // The record, not the JWT, is the authority; a JWT whose expiry differs from
    // its record was not minted for it.
    if (head.expiresAt.getTime() !== claims.exp * 1000) throw new AuthenticationError('unknown');
    // issueSession never gives a session a parent: a row that says otherwise was not written by it.
    if (claims.kind === 'session' && head.parentId !== null) throw new AuthenticationError('unknown');
    for (let i = 0; i < chain.length; i++) {
      const rec = chain[i] as TokenRecord;
      if (rec.ownerId !== claims.sub) throw new AuthenticationError('unknown');
      const next = chain[i + 1];
      if (next === undefined ? rec.parentId !== null : rec.parentId !== next.id) throw new AuthenticationError('unknown');
    }
    // Revoked before expired, as a reason; plain loops: no closure per request.
    for (let i = 0; i < chain.length; i++) if ((chain[i] as TokenRecord).revokedAt !== null) throw new AuthenticationError('revoked');
    for (let i = 0; i < chain.length; i++)
      if (nowMs >= (chain[i] as TokenRecord).expiresAt.getTime()) throw new AuthenticationError('expired');
    return chain;
  } catch (err) {
    if (err instanceof SvcAuthError) throw err;
    throw new UnavailableError('token store returned a malformed record', { cause: err });
  }
}

/**
 * The earliest expiry along a chain, in milliseconds.
 *
 * @example
 * ```ts
 * new Date(chainExpiryMs(chain)); // when this token stops working at the latest
 * ```
 */
export function chainExpiryMs(chain: readonly TokenRecord[]): number {
  let min = Number.POSITIVE_INFINITY;
  for (const r of chain) min = Math.min(min, r.expiresAt.getTime());
  return min;
}

/** Why a recorded issuer's access token without its records is refused, in words its holder can act on. */
const GRANT_NOT_ON_RECORD = 'this access token is not on record (its grant ended, or it was not recorded): sign in again';

/**
 * Check the chain of a recorded trusted issuer's access token (T10 with
 * `recorded`): exactly the token's own session record (id = its `jti`, the
 * same expiry) under its grant's session record, both its user's, neither
 * revoked nor expired. Reasons as {@link checkChain}; no record at all is
 * `unknown` with a message that says to sign in again.
 *
 * @example
 * ```ts
 * checkGrantChain(await store.readChain(claims.jti), { jti, sub: claims.userId, exp: claims.exp }, Date.now());
 * ```
 */
export function checkGrantChain(chain: unknown, claims: { jti: string; sub: string; exp: number }, nowMs: number): readonly TokenRecord[] {
  if (chain === null || chain === undefined) throw new AuthenticationError('unknown', GRANT_NOT_ON_RECORD);
  if (!Array.isArray(chain) || !chain.every(isRecordShaped)) {
    throw new UnavailableError('token store returned something that is not a record chain');
  }
  try {
    const [head, grant] = chain;
    if (chain.length !== 2 || head === undefined || grant === undefined) throw new AuthenticationError('unknown', GRANT_NOT_ON_RECORD);
    if (head.id !== claims.jti || head.kind !== 'session' || grant.kind !== 'session') throw new AuthenticationError('unknown');
    if (head.parentId !== grant.id || grant.parentId !== null) throw new AuthenticationError('unknown');
    if (head.ownerId !== claims.sub || grant.ownerId !== claims.sub) throw new AuthenticationError('unknown');
    if (head.expiresAt.getTime() !== claims.exp * 1000) throw new AuthenticationError('unknown');
    if (head.revokedAt !== null || grant.revokedAt !== null) throw new AuthenticationError('revoked');
    if (nowMs >= head.expiresAt.getTime() || nowMs >= grant.expiresAt.getTime()) throw new AuthenticationError('expired');
    return chain;
  } catch (err) {
    if (err instanceof SvcAuthError) throw err;
    throw new UnavailableError('token store returned a malformed record', { cause: err });
  }
}
