/**
 * The request path of a trusted issuer's access token (T10), apart from the
 * path of svc-auth's own tokens: the verified token becomes a session of its
 * user, capped by the user's live roles like any session, and narrowed to the
 * svc permissions of its `scope` claim when that claim narrows (one global-tier
 * layer; the issuer's `scopes` option says when it does). Such a narrowed session
 * manages no tokens (token-api refuses it), or a `repo:read` grant to an MCP
 * client could mint itself a full-access PAT.
 * @module
 */
import { compileLayer, type CompiledLayer, type Principal, type UserRoles } from '../../core/policy';
import type { Scope } from '../../core/scopes';
import { parseServiceAccountId, type Permission } from '../../core/vocabulary';
import { IssuerVerifier, type IssuerClaims } from '../../tokens';
import { checkUserId } from '../identity';
import type { PrincipalState } from '../internals';
import type { ResolvedOptions } from '../options';
import type { TokenRecord } from '../../stores';
import { checkGrantChain } from './chain';
import type { Grants } from './caches';
import type { PrincipalFactory } from './principal';

/** One permission set as a layer, with what the grant cache compares it by. */
interface Narrowing {
  /** The grant cache's key: no token id has this form, and equal inputs would build an equal grant anyway. */
  readonly key: string;
  /** The one global-tier entry (none when the scope named no svc permission: a layer that allows nothing). */
  readonly scopes: readonly Scope[];
  /** A one-record "chain" carrying the scopes, in the shape the grant cache reads. */
  readonly chain: readonly { readonly scopes: readonly Scope[] }[];
  /** What the grant cache calls on a miss: made once here, not a closure per request. */
  readonly layers: () => CompiledLayer[];
}

/**
 * @internal what `authenticate` asks of the trusted-issuer path.
 *
 * @example
 * ```ts
 * const foreign = issuers.cached(token, nowSec) ?? issuers.route(token, nowSec);
 * if (foreign !== undefined) return issuers.principal(foreign instanceof Promise ? await foreign : foreign);
 * ```
 */
export interface IssuerPath {
  /** The claims of an issuer token verified recently, without a promise; else `undefined`. */
  cached(token: string, nowSec: number): IssuerClaims | undefined;
  /** Verify an issuer's token; `undefined` when the token is not one (svc-auth's own verifier answers). */
  route(token: string, nowSec: number): Promise<IssuerClaims> | undefined;
  /** The session principal of verified claims, with the user's roles read now (T5). */
  principal(claims: IssuerClaims): Principal | Promise<Principal>;
}

/**
 * @internal the trusted-issuer path of one `Auth` instance, or `null` without
 * `trustedIssuers`. Shares the instance's grant cache and principal factory;
 * `rolesOf` is the instance's own (deadline, fail-closed).
 *
 * @example
 * ```ts
 * const issuers = issuerPath(opts, { rolesOf, grants, principals });
 * ```
 */
export function issuerPath(
  opts: ResolvedOptions,
  deps: {
    readonly rolesOf: (userId: string) => UserRoles | Promise<UserRoles>;
    readonly grants: Grants;
    readonly principals: PrincipalFactory;
    /** A record chain, read now (without a promise when the store can): a recorded issuer's tokens have one. */
    readonly chainOf: (id: string) => readonly TokenRecord[] | null | Promise<readonly TokenRecord[] | null>;
    readonly nowMs: () => number;
    /** Last used, of the grant's record (throttled, off the request path). */
    readonly seen: (id: string, at: number) => void;
  },
): IssuerPath | null {
  if (opts.trustedIssuers.length === 0) return null;
  const needsSegment = opts.identityOf === undefined;
  const verifier = new IssuerVerifier({
    issuers: opts.trustedIssuers,
    ownIssuer: opts.issuer,
    clockToleranceSec: opts.clockToleranceSec,
    cacheSize: opts.signatureCacheSize,
    // The same rule as issueSession and principalFor: the id may have to form the default committer identity.
    // A service account (`sa:<org>/<name>`) is a subject of the server's own authorization server only
    // (a recorded issuer: its client-credentials tokens have records we wrote); never of another issuer.
    isUserId: (id, recorded) => {
      if (recorded && parseServiceAccountId(id) !== null) return true;
      try {
        checkUserId(id, needsSegment);
        return true;
      } catch {
        return false;
      }
    },
  });
  // Keyed by the verifier's interned permission arrays: at most 2^7 entries.
  const narrowings = new Map<readonly Permission[], Narrowing>();

  function narrowingOf(permissions: readonly Permission[]): Narrowing {
    let n = narrowings.get(permissions);
    if (n === undefined) {
      const scopes: readonly Scope[] = Object.freeze(
        permissions.length === 0 ? [] : [Object.freeze({ permissions: Object.freeze([...permissions]) as Permission[] })],
      );
      const layer = compileLayer(scopes);
      n = Object.freeze({
        key: `\u0000issuer-scope:${permissions.join(' ')}`,
        scopes,
        chain: Object.freeze([Object.freeze({ scopes })]),
        layers: () => [layer],
      });
      narrowings.set(permissions, n);
    }
    return n;
  }

  // One per verified token (the verifier caches its claims object): no allocation on a hot token.
  const origins = new WeakMap<IssuerClaims, NonNullable<PrincipalState['issuer']>>();
  function originOf(claims: IssuerClaims): NonNullable<PrincipalState['issuer']> {
    let o = origins.get(claims);
    if (o === undefined) {
      const issuedBy = Object.freeze({ issuer: claims.issuer, clientId: claims.clientId, permissions: claims.permissions });
      o = Object.freeze({ issuedBy, scopeClaim: claims.scopeClaim, recorded: claims.recorded });
      origins.set(claims, o);
    }
    return o;
  }

  /** `grantRecord`: a recorded issuer's grant, whose id the principal carries (`sessions.list()` marks it current). */
  function make(claims: IssuerClaims, roles: UserRoles, grantRecord?: TokenRecord): Principal {
    const narrowing = claims.permissions === null ? undefined : narrowingOf(claims.permissions);
    const grant =
      narrowing === undefined ? deps.grants.ofRoles(roles) : deps.grants.ofScopes(narrowing.key, roles, narrowing.chain, narrowing.layers);
    const issuer = originOf(claims);
    const state = narrowing === undefined ? { roles, chain: null, issuer } : { roles, chain: null, narrowing: narrowing.scopes, issuer };
    return deps.principals.make('session', claims.userId, new Date(claims.exp * 1000), grantRecord, grant, state);
  }

  return {
    cached: (token, nowSec) => verifier.verifyCached(token, nowSec),
    route: (token, nowSec) => verifier.route(token, nowSec),
    principal(claims) {
      const withRoles = (grantRecord?: TokenRecord): Principal | Promise<Principal> => {
        const got = deps.rolesOf(claims.userId);
        return got instanceof Promise ? got.then((roles) => make(claims, roles, grantRecord)) : make(claims, got, grantRecord);
      };
      if (claims.jti === null) return withRoles();
      // A recorded issuer: the token's record and its grant's are read on every request (T5).
      const jti = claims.jti;
      const checked = (chain: readonly TokenRecord[] | null): Principal | Promise<Principal> => {
        const at = deps.nowMs();
        const ok = checkGrantChain(chain, { jti, sub: claims.userId, exp: claims.exp }, at);
        deps.seen((ok[1] as TokenRecord).id, at);
        // The grant is the session a person sees and ends (svc auth sessions): the principal carries its id.
        return withRoles(ok[1]);
      };
      const chain = deps.chainOf(jti);
      return chain instanceof Promise ? chain.then(checked) : checked(chain);
    },
  };
}
