/**
 * What token management shows and takes: `TokenInfo` and the inputs and
 * answers of `client(p).token.*`, `auth.tokensOf` and `auth.sweepExpiring`.
 * @module
 */
import type { Scope, ScopeEntry } from '../../core/scopes';
import type { UsedFrom } from '../../stores';
import type { OrgAccessStatus } from '../../stores';
import type { JWK } from '../../tokens';

/** A token as management shows it. The token value is never part of it. */
export interface TokenInfo {
  /** The token's id (its JWT `jti`); `auth.revokeToken(id)` takes it. */
  id: string;
  /** Unique per owner among active tokens (T7). */
  name: string;
  /** Free text given at creation, or `null`. */
  description: string | null;
  /** Derived when read (T4): `revoked` if revoked, else `expired` once now >= `expiresAt`, else `active`. */
  status: 'active' | 'expired' | 'revoked';
  /** The normalized scopes (roles expanded, S9), or `null` for the owner's full access. */
  scopes: Scope[] | null;
  /** When it was created, in whole seconds (the JWT `iat`). */
  createdAt: Date;
  /** When it stops authenticating, in whole seconds (the JWT `exp`). */
  expiresAt: Date;
  /** When it (or an ancestor, T6) was revoked, or `null`. */
  revokedAt: Date | null;
  /** The identity its writes are committed as (T9), or `null` for the owner's own. */
  committerIdentity: string | null;
  /** The id of the PAT that created it, or `null` when a session did. */
  parentId: string | null;
  /** When `authenticate` last accepted it (recorded at most once per `lastUsedIntervalMs`); `null` if never. */
  lastUsedAt: Date | null;
  /**
   * The last recorded use: when, from which client address, with which user
   * agent (`null` each when not known: a store without `recordUse`, a use
   * through `authenticate` without an origin); `null` if never used.
   */
  lastUsed: LastUse | null;
  /** The last few distinct client addresses it was used from (at most 5), newest first. */
  usedFrom: UsedFrom[];
  /**
   * The address ranges it may be used from (canonical CIDR text), or `null`
   * for anywhere. A token without a list of its own is still limited by the
   * list of the token that created it.
   */
  allowedIps: string[] | null;
  /**
   * The RFC 7638 thumbprint (SHA-256, base64url) of the key it is bound to, or `null`: a bound token is
   * taken only with a DPoP proof signed by that key (the token alone is refused).
   */
  boundKey: string | null;
  /** Its access to each org that governs it (G3), its own decisions and those it inherits; empty when none. */
  orgAccess: OrgAccess[];
}

/**
 * One recorded use of a token, as {@link TokenInfo.lastUsed} shows it.
 *
 * @example
 * ```ts
 * const last: LastUse = { at: new Date(), address: '203.0.113.7', userAgent: 'curl/8.5.0' };
 * ```
 */
export interface LastUse {
  /** When (whole seconds): the same instant as `lastUsedAt`. */
  at: Date;
  /** The client address of that use (canonical text), or `null` when it was not known. */
  address: string | null;
  /** Its `User-Agent` (at most 256 characters, no control characters), or `null`. */
  userAgent: string | null;
}

/**
 * Options of `auth.sweepExpiring`.
 *
 * @example
 * ```ts
 * const options: SweepOptions = { within: '7d', limit: 1000 };
 * ```
 */
export interface SweepOptions {
  /** The warning threshold: `'<N>d'` or a number of days, 1 to 365 (as `expiresIn`). */
  within: string | number;
  /** Most tokens warned by this call (1 to 10 000, default 1 000); the rest wait for the next sweep. */
  limit?: number;
}

/**
 * A token `auth.sweepExpiring` warned about: what management shows of it,
 * with its owner and the threshold. Never the token value.
 *
 * @example
 * ```ts
 * const t: ExpiringToken = (await auth.sweepExpiring({ within: '7d' }))[0];
 * console.log(`${t.ownerId}: ${t.name} expires ${t.expiresAt.toISOString()} (within ${t.withinDays} days)`);
 * ```
 */
export interface ExpiringToken extends TokenInfo {
  /** Who owns it: whom to tell. */
  ownerId: string;
  /** The threshold this warning is for, in days. */
  withinDays: number;
}

/** Options of `client(p).token.list`. */
export interface ListTokensOptions {
  /** Only active tokens that expire within this time: `'<N>d'` or a number of days, 1 to 365 (as `expiresIn`). */
  expiringWithin?: string | number;
}

/** Input of `client(p).token.create`. */
export interface CreateTokenInput {
  name: string;
  description?: string;
  scopes?: ScopeEntry[];
  /** `'<N>d'` or a number of days, 1 to 365. Default 30 days. */
  expiresIn?: string | number;
  committerIdentity?: string;
  /**
   * Limit where the token may be used from: addresses or CIDR ranges, IPv4 or
   * IPv6 (`['203.0.113.0/24', '2001:db8::/32']`), 1 to 64 entries. A request
   * from elsewhere is refused with `ForbiddenError` (reason `ip`, HTTP 403). A
   * token created by a limited token must lie inside its list (each range
   * inside one of the parent's), and without a list it is limited by the parent's.
   */
  allowedIps?: string[];
  /** Why it is needed (at most 1 024 characters): shown to the owners of orgs that must approve it. */
  justification?: string;
  /**
   * Bind the token to a key: a public JWK (Ed25519, P-256, P-384, or RSA of at least 2048 bits; never a
   * private or symmetric key). Every use then needs a DPoP proof (RFC 9449) signed by that key, so the
   * token alone, leaked from a log or a config file, is refused. A token created by a bound token is
   * bound too: to its parent's key, unless this names another.
   */
  bindKey?: JWK;
}

/** The SDK namespace `client(principal).token.*` (docs/concepts.md). */
export interface TokenApi {
  /**
   * Create a PAT owned by the caller's user; a PAT caller creates its own child (M4). The value is
   * returned once and never stored (T8). Throws `ValidationError` for bad input, `ConflictError` for a
   * name already active (T7), `ForbiddenError` for a child asking more than its parent (M4) or a
   * component caller (M3).
   */
  create(input: CreateTokenInput): Promise<{
    /** The token value: show it once, it cannot be read again. */
    token: string;
    /** The new token as management shows it. */
    info: TokenInfo;
    /** Notices for the user: stripped `allowedMatches` (S5), an expiry clamped to the parent's (T3), entries above the role (M5). */
    warnings: string[];
  }>;
  /** The tokens this caller manages (M1, M2), with derived status (T4). */
  list(options?: ListTokensOptions): Promise<TokenInfo[]>;
  /** The active token of that name, else the newest (T7); `NotFoundError` outside what the caller manages. */
  get(name: string): Promise<TokenInfo>;
  /**
   * Revoke the newest non-revoked token of that name and its whole subtree (T6, T7).
   * `NotFoundError` outside what the caller manages; `ForbiddenError` when a PAT names
   * itself (a session of its user, or the token that created it, can revoke it).
   */
  revoke(name: string): Promise<TokenInfo>;
}

/**
 * One token's access to one org, as `TokenInfo.orgAccess` shows it.
 *
 * @example
 * ```ts
 * const { info } = await auth.client(member).token.create({ name: 'ci', scopes: [{ resource: 'acme', permissions: ['repo:read'] }] });
 * info.orgAccess; // [{ org: 'acme', status: 'pending', reason: null, decidedBy: null, decidedAt: null }] when acme requires approval
 * ```
 */
export interface OrgAccess {
  org: string;
  status: OrgAccessStatus;
  /** The owner's reason, or `null`. */
  reason: string | null;
  /** Who decided, or `null` while pending. */
  decidedBy: string | null;
  decidedAt: Date | null;
}
