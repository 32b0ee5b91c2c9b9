/**
 * The grant of an authenticated credential, as the request path asks for it:
 * "the grant of this record chain and these roles". Which cache entry serves
 * it (one per token, one shared by every unscoped session, one per trusted
 * issuer's scope narrowing) and which layers are compiled on a miss is decided
 * here, beside the path, so that the path itself reads as the plain sequence
 * verify, read the chain, read the roles, decide (T5).
 * @module
 */
import { UnavailableError } from '../../../errors';
import type { CompiledLayer, Grant, OrgGate, UserRoles } from '../../../core/policy';
import type { Scope } from '../../../core/scopes';
import type { TokenRecord } from '../../../stores';
import { GrantCache, LayerCache } from './grant-cache';
import type { RecordScopes } from './scopes-pin';

/**
 * @internal The grants of one `Auth` instance. Every method throws `UnavailableError` when the roles (or a
 * record's scopes) cannot be compiled: bad role data is the membership source's fault, never an allow.
 *
 * @example
 * ```ts
 * const grants = grantSource(10_000, 10_000);
 * const grant = grants.ofChain(chain, await members.rolesOf(chain[0].ownerId));
 * ```
 */
export interface Grants {
  /**
   * The grant of a token's record chain (nearest first, not empty) and its owner's roles, read now,
   * limited by the org gates of the chain (`null`: none), which are part of the cache key.
   */
  ofChain(chain: readonly TokenRecord[], roles: UserRoles, gates?: Readonly<Record<string, OrgGate>> | null): Grant;
  /** The grant of the roles alone: a session principal without a token, a trusted issuer's token that no scope narrows. */
  ofRoles(roles: UserRoles): Grant;
  /**
   * The grant of the roles narrowed by one set of scopes that no record holds (a trusted issuer's `scope`
   * claim): `key` is its cache key, which no token id can be; `layers` compiles it on a miss.
   */
  ofScopes(key: string, roles: UserRoles, chain: readonly { readonly scopes: readonly Scope[] }[], layers: () => CompiledLayer[]): Grant;
}

/**
 * @internal The grants of one `Auth` instance, over its own caches (never module-global: two `Auth` objects
 * share nothing). Sizes of 0 turn a cache off.
 *
 * @example
 * ```ts
 * const grants = grantSource(opts.layerCacheSize, opts.grantCacheSize);
 * ```
 */
export function grantSource(layerCacheSize: number, grantCacheSize: number): Grants {
  const layers = new LayerCache(layerCacheSize);
  const grants = new GrantCache(grantCacheSize);

  /** The compiled layers of a chain's scoped records (scopes as the grant cache read them); only on a grant-cache miss. */
  function scopedLayers(chain: readonly TokenRecord[] | null, scopes: readonly RecordScopes[]): CompiledLayer[] {
    const out: CompiledLayer[] = [];
    if (chain === null) return out;
    for (let i = 0; i < chain.length; i++) {
      const s = scopes[i] ?? null;
      if (s !== null) out.push(layers.get((chain[i] as TokenRecord).id, s));
    }
    return out;
  }
  const noLayers = (): CompiledLayer[] => [];

  /** Bad role data is the membership source's fault; never an allow. */
  const invalidRoles = (err: unknown): UnavailableError =>
    new UnavailableError('membership source returned roles that are not valid', { cause: err });

  return Object.freeze({
    ofChain(chain: readonly TokenRecord[], roles: UserRoles, gates: Readonly<Record<string, OrgGate>> | null = null): Grant {
      const head = chain[0] as TokenRecord;
      // A session's record has no scopes: its grant is its user's roles alone,
      // one cache entry shared by all sessions (key null) instead of one per
      // session. A session row given scopes by hand is layered like any record.
      // (A try in each method, not a wrapper taking a closure: nothing is allocated per request.)
      const layered = head.kind !== 'session' || head.scopes !== null;
      try {
        // Gates come only with a PAT chain, which is always layered (keyed by its own id).
        return layered ? grants.get(head.id, roles, chain, scopedLayers, gates) : grants.get(null, roles, null, scopedLayers);
      } catch (err) {
        throw invalidRoles(err);
      }
    },
    ofRoles(roles: UserRoles): Grant {
      try {
        return grants.get(null, roles, null, noLayers);
      } catch (err) {
        throw invalidRoles(err);
      }
    },
    ofScopes(
      key: string,
      roles: UserRoles,
      chain: readonly { readonly scopes: readonly Scope[] }[],
      compile: () => CompiledLayer[],
    ): Grant {
      try {
        return grants.get(key, roles, chain, compile);
      } catch (err) {
        throw invalidRoles(err);
      }
    },
  });
}
