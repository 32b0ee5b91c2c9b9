/**
 * The principals one `Auth` instance hands out. Each instance gets its own
 * class, whose private field holds what the instance remembers about the
 * principal: a private field cannot be read, forged or copied from outside (a
 * spread, `structuredClone`, JSON or a Proxy carries none), and another
 * instance's class does not see it. This replaces a per-instance WeakMap,
 * which cost a hash insert and ephemeron work in GC on every authenticate.
 * The grant is served the same way, by an accessor on the class's prototype
 * under the policy layer's grant slot: not an own property, so copies carry
 * none, and it answers only for an object that holds the private field.
 * Internal: not exported from the package root.
 * @module
 */
import { GRANT_SLOT, type IssuedBy, type Principal, type UserRoles } from '../../core/policy';
import type { Scope } from '../../core/scopes';
import { parseServiceAccountId, type Permission, type ServiceAccountRef } from '../../core/vocabulary';
import type { TokenRecord } from '../../stores';
import type { PrincipalState } from '../internals';

// What a principal was authenticated with (its token chain, nearest first,
// `null` for `principalFor` and a trusted issuer's session; a trusted issuer's narrowing), served like the grant:
// only a real principal answers, of any Auth instance. Module-private: others
// ask principalScopes.
const STATE_SLOT: unique symbol = Symbol('svc-auth.state');

/**
 * @internal the scopes a principal's token shows: its own, else the nearest
 * ancestor's that has scopes (what an unscoped child inherits, A5); for a
 * trusted issuer's session narrowed by its `scope` claim, that one global entry
 * (none when the claim named no svc permission); `null` for full access (a
 * session, a chain without scopes); `undefined` for anything
 * that is not a principal some `auth.authenticate` returned. For display (the
 * `AuthInfo.scopes` of svc-auth/mcp): decisions still use every layer. Never throws.
 *
 * @example
 * ```ts
 * principalScopes(await auth.authenticate(readerPat)); // [{ resource: 'acme/web', permissions: ['repo:read'] }]
 * principalScopes(await auth.authenticate(session));   // null
 * principalScopes({ ...principal });                   // undefined
 * ```
 */
export function principalScopes(p: unknown): readonly Scope[] | null | undefined {
  try {
    if (typeof p !== 'object' || p === null) return undefined;
    const state = (p as { [STATE_SLOT]?: PrincipalState })[STATE_SLOT];
    if (state === undefined) return undefined;
    if (state.narrowing !== undefined) return state.narrowing;
    return state.chain?.find((r) => r.scopes !== null)?.scopes ?? null;
  } catch {
    // A throwing getter or Proxy trap: not a principal.
    return undefined;
  }
}

/**
 * @internal what a trusted issuer's session was narrowed to by its token's
 * `scope` claim (T10): the svc permissions granted (none when the claim named
 * none), and the roles read when it was authenticated (the role cap, which no
 * consent changes). `undefined` for every other principal (a PAT, a component
 * token, a session whose claim does not narrow it) and for anything that is not a
 * principal some `auth.authenticate` returned. svc-auth/mcp asks it to tell a
 * refusal by the granted scope (a new consent lifts it: an OAuth scope
 * challenge) from a refusal by the role (it cannot). Never throws.
 *
 * @example
 * ```ts
 * scopeNarrowing(await auth.authenticate(oauthAccessToken)); // { granted: ['repo:read'], roles: { orgs: { acme: 'editor' } } }
 * scopeNarrowing(await auth.authenticate(pat));              // undefined
 * ```
 */
export function scopeNarrowing(p: unknown): { readonly granted: readonly Permission[]; readonly roles: UserRoles } | undefined {
  try {
    if (typeof p !== 'object' || p === null) return undefined;
    const state = (p as { [STATE_SLOT]?: PrincipalState })[STATE_SLOT];
    if (state?.narrowing === undefined) return undefined;
    // The narrowing is one global-tier entry, or none (issuer.ts): its permissions are the grant.
    return { granted: state.narrowing.flatMap((s) => s.permissions), roles: state.roles };
  } catch {
    // A throwing getter or Proxy trap: not a principal.
    return undefined;
  }
}

/**
 * Make principals and find their state again; one per `Auth` instance.
 *
 * @example
 * ```ts
 * const principals = principalFactory();
 * const p = principals.make('pat', 'alice', expiresAt, chain[0], grant, { roles, chain });
 * principals.stateOf(p)?.roles;           // the roles read at authentication
 * principals.stateOf({ ...p });           // undefined: copies carry no state
 * principals.grantOf(p) === grant;         // true; another factory's principal: undefined
 * ```
 */
export interface PrincipalFactory {
  /** A frozen principal with `grant` attached; `head` is the token's own record (none for `principalFor`). */
  make(
    kind: Principal['kind'],
    userId: string,
    expiresAt: Date,
    head: TokenRecord | undefined,
    grant: unknown,
    state: PrincipalState,
  ): Principal;
  /** The state of a principal made by this very factory, else `undefined`. */
  stateOf(p: unknown): PrincipalState | undefined;
  /**
   * The grant of a principal made by this very factory, else `undefined`
   * (another instance's principal, a copy, a Proxy). No allocation: this is
   * on the path of every `auth.authorize`.
   */
  grantOf(p: unknown): unknown;
}

/**
 * A {@link PrincipalFactory} with a class of its own.
 *
 * @example
 * ```ts
 * const a = principalFactory();
 * const b = principalFactory();
 * b.stateOf(a.make('session', 'alice', new Date(), undefined, grant, { roles: {}, chain: null })); // undefined
 * ```
 */
export function principalFactory(refOf: (userId: string) => ServiceAccountRef | null = parseServiceAccountId): PrincipalFactory {
  class AuthPrincipal implements Principal {
    readonly kind: Principal['kind'];
    readonly userId: string;
    readonly expiresAt: Date;
    readonly serviceAccount: ServiceAccountRef | null;
    // `declare`: absent rather than present as undefined (no record; a session has no token name).
    declare readonly tokenId?: string;
    declare readonly tokenName?: string;
    declare readonly committerIdentity?: string;
    declare readonly issuedBy?: IssuedBy;
    readonly #state: PrincipalState;
    readonly #grant: unknown;

    constructor(
      kind: Principal['kind'],
      userId: string,
      expiresAt: Date,
      head: TokenRecord | undefined,
      grant: unknown,
      state: PrincipalState,
    ) {
      this.kind = kind;
      this.userId = userId;
      this.expiresAt = expiresAt;
      // One prefix test for a person (refOf's first step); the id's form is reserved (W1), so it cannot be a user's.
      this.serviceAccount = refOf(userId);
      if (head !== undefined) {
        const self = this as { tokenId?: string; tokenName?: string; committerIdentity?: string };
        self.tokenId = head.id;
        // Names are the user's namespace of PATs (T7); a session's label is no token name.
        if (kind !== 'session') self.tokenName = head.name;
        if (head.committerIdentity !== null) self.committerIdentity = head.committerIdentity;
      }
      if (state.issuer !== undefined) (this as { issuedBy?: IssuedBy }).issuedBy = state.issuer.issuedBy;
      this.#grant = grant;
      this.#state = state;
    }

    // A Proxy or an object made from this prototype holds no field: no grant.
    get [GRANT_SLOT](): unknown {
      return #grant in this ? this.#grant : undefined;
    }

    get [STATE_SLOT](): PrincipalState | undefined {
      return #state in this ? this.#state : undefined;
    }

    static stateOf(p: unknown): PrincipalState | undefined {
      // `#state in p` is false for copies and Proxies, and never runs a trap.
      return typeof p === 'object' && p !== null && #state in p ? p.#state : undefined;
    }

    static grantOf(p: unknown): unknown {
      // The class is this instance's own, so another Auth's principal has no such
      // field, although it carries a real grant under the shared GRANT_SLOT.
      return typeof p === 'object' && p !== null && #grant in p ? p.#grant : undefined;
    }
  }
  return {
    make(kind, userId, expiresAt, head, grant, state) {
      return Object.freeze(new AuthPrincipal(kind, userId, expiresAt, head, grant, state));
    },
    stateOf: (p) => AuthPrincipal.stateOf(p),
    grantOf: (p) => AuthPrincipal.grantOf(p),
  };
}
