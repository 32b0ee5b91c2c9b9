/**
 * `createAuth`: the service layer (6). Authenticates credentials into
 * principals, decides with the policy core, issues sessions and component
 * tokens, and hands out token management (`client(p).token.*`).
 * @module
 */
import { AuthenticationError, UnavailableError, ValidationError } from '../errors';
import { authorize as decide, compileLayer, type CompiledLayer } from '../policy';
import type { Principal } from '../policy/subject';
import type { UserRoles } from '../policy/types';
import { normalizeScopes } from '../scopes';
import type { Scope, ScopeEntry } from '../scopes/types';
import { MemoryTokenStore, READ_CHAIN_NOW } from '../stores/memory';
import type { TokenRecord } from '../stores/types';
import { newTokenId } from '../tokens/claims';
import { LIFETIMES, parseShortDuration } from '../tokens/duration';
import { isKeyRing } from '../tokens/keyring';
import { mintToken } from '../tokens/mint';
import { MAX_TOKEN_CHARS, TokenVerifier } from '../tokens/verify';
import type { TokenClaims } from '../tokens/types';
import { bearerFromRequest } from './bearer';
import { checkChain, chainExpiryMs, type ChainClaims } from './chain';
import type { PrincipalState, ServiceContext } from './context';
import { principalFactory } from './principal';
import { GrantCache } from './grant-cache';
import { failure, guarded, readClock } from './guard';
import { checkIdentity, checkUserId, defaultIdentity } from './identity';
import { tokenApi } from './management';
import { resolveOptions, systemClock } from './options';
import type { Auth, AuthOptions } from './types';

/** Compiled scope layers kept per token id; scopes never change, so this is safe to cache. */
const LAYER_CACHE_SIZE = 10_000;
/** Compiled grants kept per (token id, roles); see grant-cache.ts for why this is safe. */
const GRANT_CACHE_SIZE = 10_000;

function rejectUnknownKeys(opts: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) {
    throw new ValidationError([{ path: 'opts', message: 'must be an object' }]);
  }
  const bad = Reflect.ownKeys(opts).filter((k) => typeof k !== 'string' || !allowed.includes(k));
  if (bad.length > 0) throw new ValidationError(bad.map((k) => ({ path: `opts.${String(k)}`, message: 'unknown option' })));
  return opts as Record<string, unknown>;
}

/**
 * Build the service: authenticate credentials, authorize requests, manage
 * tokens. Options are checked here, once (`ValidationError` on misuse).
 *
 * @example
 * ```ts
 * import { createAuth, generateKeyRing } from 'svc-auth';
 * const auth = createAuth({
 *   issuer: 'https://svc.example',
 *   keys: await generateKeyRing(),
 *   members: { rolesOf: async (userId) => ({ orgs: { acme: 'editor' } }) },
 * });
 * const session = await auth.issueSession('alice');
 * const me = await auth.authenticate(session);
 * const { token } = await auth.client(me).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
 * const ci = await auth.authenticate(token);
 * auth.authorize(ci, 'acme/web', 'repo:read');  // { allowed: true }
 * auth.authorize(ci, 'acme/web', 'repo:write'); // { allowed: false, reason: 'scope' }
 * ```
 */
export function createAuth(options: AuthOptions): Auth {
  const opts = resolveOptions(options, isKeyRing);
  const store = opts.tokens ?? new MemoryTokenStore();
  const verifier = new TokenVerifier({
    ring: opts.keys,
    issuer: opts.issuer,
    clockToleranceSec: opts.clockToleranceSec,
    cacheSize: opts.signatureCacheSize,
    maxLifetimeSec: { pat: LIFETIMES.pat.maxSec, session: LIFETIMES.session.maxSec, component: LIFETIMES.component.maxSec },
  });
  // Per-instance, never module-global: two Auth objects share nothing.
  const principals = principalFactory();
  const layers = new Map<string, CompiledLayer>();
  const grants = new GrantCache(GRANT_CACHE_SIZE);

  const nowMs = opts.now === systemClock ? (): number => Date.now() : (): number => readClock(opts.now);
  const call = <T>(what: string, fn: () => T | Promise<T>): Promise<T> => guarded(fn, opts.storeTimeoutMs, what);

  function layerOf(record: TokenRecord): CompiledLayer {
    let layer = layers.get(record.id);
    if (layer === undefined) {
      layer = compileLayer(record.scopes as readonly Scope[]);
      if (layers.size >= LAYER_CACHE_SIZE) layers.delete(layers.keys().next().value as string);
      layers.set(record.id, layer);
    }
    return layer;
  }

  function rolesOf(userId: string): Promise<UserRoles> {
    return call('membership source', () => opts.members.rolesOf(userId));
  }

  function stateOf(p: Principal): PrincipalState {
    const state = principals.stateOf(p);
    if (state === undefined) {
      throw new ValidationError([{ path: 'principal', message: 'not a principal returned by this auth instance (copies are refused)' }]);
    }
    return state;
  }

  async function readValidChain(claims: ChainClaims, at: number): Promise<readonly TokenRecord[]> {
    const chain = await call('token store', () => store.readChain(claims.jti));
    return checkChain(chain, claims, at);
  }

  /**
   * The bundled memory store answers synchronously: read it without a promise
   * and a deadline per request. Only when its `readChain` is the class's own
   * (a subclass or a spy may do anything, and goes through `call`).
   */
  function readChainNow(jti: string): TokenRecord[] | null | undefined {
    if (!(store instanceof MemoryTokenStore) || store.readChain !== MemoryTokenStore.prototype.readChain) return undefined;
    try {
      return store[READ_CHAIN_NOW](jti);
    } catch (err) {
      throw failure(err, 'token store');
    }
  }

  /** The compiled layers of a chain's scoped records; only called on a grant-cache miss. */
  function scopedLayers(chain: readonly TokenRecord[] | null): CompiledLayer[] {
    const out: CompiledLayer[] = [];
    if (chain !== null) for (const r of chain) if (r.scopes !== null) out.push(layerOf(r));
    return out;
  }

  async function authenticate(token: string): Promise<Principal> {
    if (typeof token !== 'string') throw new AuthenticationError('malformed');
    if (token.length === 0) throw new AuthenticationError('missing');
    if (token.length > MAX_TOKEN_CHARS) throw new AuthenticationError('malformed');
    const at = nowMs();
    const nowSec = Math.floor(at / 1000);
    const claims: TokenClaims = verifier.verifyCached(token, nowSec) ?? (await verifier.verify(token, nowSec));
    // The frozen claims serve as the chain claims as they are (no copy per request).
    let chain: readonly TokenRecord[] | null = null;
    if (claims.kind !== 'session') {
      const now = readChainNow(claims.jti);
      chain = now === undefined ? await readValidChain(claims as TokenClaims & ChainClaims, at) : checkChain(now, claims as TokenClaims & ChainClaims, at);
    }
    const roles = await rolesOf(claims.sub);
    let grant;
    try {
      grant = grants.get(chain === null ? null : (chain[0] as TokenRecord).id, roles, chain, scopedLayers);
    } catch (err) {
      // Bad role data is the membership source's fault; never an allow.
      throw new UnavailableError('membership source returned roles that are not valid', { cause: err });
    }
    const expiresAt = new Date(chain === null ? claims.exp * 1000 : chainExpiryMs(chain));
    return principals.make(claims.kind, claims.sub, expiresAt, chain?.[0], grant, { roles, chain });
  }

  const ctx: ServiceContext = {
    issuer: opts.issuer,
    keys: opts.keys,
    store,
    nowMs,
    call,
    stateOf,
    async recheck(p) {
      const at = nowMs();
      const state = stateOf(p);
      if (state.chain === null) {
        if (at >= p.expiresAt.getTime()) throw new AuthenticationError('expired');
        return null;
      }
      const head = state.chain[0] as TokenRecord;
      return readValidChain({ kind: head.kind, sub: p.userId, jti: head.id, exp: head.expiresAt.getTime() / 1000 }, at);
    },
  };

  const auth: Auth = {
    authenticate,

    async authenticateRequest(req) {
      return authenticate(bearerFromRequest(req));
    },

    authorize(p, resource, permission, thingName) {
      return decide(p, resource, permission, thingName);
    },

    client(p) {
      return Object.freeze({ token: tokenApi(ctx, p) });
    },

    async issueSession(userId, sessionOpts) {
      const id = checkUserId(userId, opts.identityOf === undefined);
      const o = rejectUnknownKeys(sessionOpts, ['expiresIn']);
      const sec = parseShortDuration(o.expiresIn as string | undefined, LIFETIMES.session);
      const iat = Math.floor(nowMs() / 1000);
      return mintToken(opts.keys, { kind: 'session', iss: opts.issuer, sub: id, jti: newTokenId(), iat, exp: iat + sec });
    },

    async issueComponentToken(userId, componentOpts) {
      const id = checkUserId(userId, opts.identityOf === undefined);
      const o = rejectUnknownKeys(componentOpts, ['scopes', 'expiresIn']);
      const sec = parseShortDuration(o.expiresIn as string | undefined, LIFETIMES.component);
      const scopes = o.scopes === undefined ? null : normalizeScopes(o.scopes as ScopeEntry[]).scopes;
      const at = nowMs();
      const iat = Math.floor(at / 1000);
      const jti = newTokenId();
      const record: TokenRecord = Object.freeze({
        id: jti,
        kind: 'component' as const,
        ownerId: id,
        name: `component-${jti.slice(0, 8)}`,
        description: null,
        scopes: scopes === null ? null : Object.freeze(scopes),
        parentId: null,
        createdAt: new Date(iat * 1000),
        expiresAt: new Date((iat + sec) * 1000),
        revokedAt: null,
        committerIdentity: null,
      });
      const token = await mintToken(opts.keys, { kind: 'component', iss: opts.issuer, sub: id, jti, iat, exp: iat + sec });
      const result = await call('token store', () => store.insert(record, new Date(at)));
      if (result !== 'ok') throw new UnavailableError(`token store refused a component token record (${String(result)})`);
      return token;
    },

    committer(p, override) {
      stateOf(p);
      if (override !== undefined) return checkIdentity(override, 'override');
      if (p.committerIdentity !== undefined) return p.committerIdentity;
      if (opts.identityOf === undefined) return checkIdentity(defaultIdentity(p.userId), 'userId');
      let own: unknown;
      try {
        own = opts.identityOf(p.userId);
      } catch (err) {
        throw new UnavailableError('identityOf failed', { cause: err });
      }
      return checkIdentity(own, 'identityOf');
    },

    async revokeToken(tokenId) {
      if (typeof tokenId !== 'string' || tokenId.length === 0 || tokenId.length > 256) {
        throw new ValidationError([{ path: 'tokenId', message: 'must be a token id string' }]);
      }
      const at = nowMs();
      await call('token store', () => store.revoke([tokenId], new Date(at)));
    },
  };
  return Object.freeze(auth);
}
