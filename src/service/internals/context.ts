/**
 * What the parts of one `Auth` instance share (`authenticate/`, `manage/`).
 * Internal: not exported from the package root.
 * @module
 */
import type { Decision, IssuedBy, Principal, UserRoles } from '../../core/policy';
import type { Scope } from '../../core/scopes';
import type { TokenRecord, TokenStore } from '../../stores';
import type { KeyRing } from '../../tokens';
import type { EventDispatcher } from '../events';

/**
 * What an `Auth` instance remembers about a principal it returned, kept in a private field of the principal (see authenticate/principal.ts).
 *
 * @example
 * ```ts
 * const state = ctx.stateOf(principal);
 * state.chain?.[0]?.id === principal.tokenId; // true for a PAT
 * ```
 */
export interface PrincipalState {
  /** The roles read when the principal was authenticated. */
  readonly roles: UserRoles;
  /** The token's record and its ancestors, nearest first; `null` for a principal without a token (`principalFor`). */
  readonly chain: readonly TokenRecord[] | null;
  /**
   * A trusted issuer's session narrowed by its token's `scope` claim: the one
   * global-tier entry it was narrowed to (T10). Such a principal manages no tokens.
   */
  readonly narrowing?: readonly Scope[];
  /** A trusted issuer's session: what its refusals name (T10). */
  readonly issuer?: { readonly issuedBy: IssuedBy; readonly scopeClaim: string | null; readonly recorded: boolean };
}

/**
 * The services of one `Auth` instance that token management uses.
 *
 * @example
 * ```ts
 * const records = await ctx.call('token store', () => ctx.store.listByOwner(p.userId));
 * ```
 */
export interface ServiceContext {
  readonly issuer: string;
  readonly keys: KeyRing;
  readonly store: TokenStore;
  /** The injected clock, in milliseconds; throws `UnavailableError` when it fails. */
  nowMs(): number;
  /** A dependency call with the store timeout; any failure is `UnavailableError`. */
  call<T>(what: string, fn: () => T | Promise<T>): Promise<T>;
  /** The state of a principal this instance returned; `ValidationError` for anything else. */
  stateOf(p: Principal): PrincipalState;
  /** Where audit events go; `null` when `createAuth` was given no `onEvent`. */
  readonly events: EventDispatcher | null;
  /**
   * Re-read the principal's token chain and check it is still valid
   * (revocation and expiry since the principal was authenticated); for a
   * principal without a token (`principalFor`) check its expiry. Resolves to
   * the fresh chain, or `null` without a token.
   */
  recheck(p: Principal): Promise<readonly TokenRecord[] | null>;
  /** `auth.authorize` of this instance (the org API's permission check). */
  decide(p: Principal, resource: string, permission: string): Decision;
  /** A user's roles read now from the membership source, under the deadline. */
  rolesOf(userId: string): Promise<UserRoles>;
}
