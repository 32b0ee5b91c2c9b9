/**
 * `createAuth`: the service layer (6). Authenticates credentials into
 * principals, decides with the policy core, issues sessions and component
 * tokens, and hands out token management (`client(p).token.*`).
 * @module
 */
import { AuthenticationError, UnavailableError, ValidationError } from '../errors';
import { authorize as decide, type CompiledLayer } from '../policy';
import type { Principal } from '../policy/subject';
import type { UserRoles } from '../policy/types';
import { normalizeScopes } from '../scopes';
import type { ScopeEntry } from '../scopes/types';
import { MemoryTokenStore } from '../stores/memory';
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
import { createdEvent, EventDispatcher, registerEvents, revokedEvent, SERVER_ACTOR, type EventActor } from './events';
import { LastUsedRecorder } from './last-used';
import { managedRecords, toInfo } from './records';
import { principalFactory } from './principal';
import { GrantCache, LayerCache } from './grant-cache';
import { failure, guarded, readClock } from './guard';
import { checkIdentity, checkUserId, defaultIdentity } from './identity';
import { tokenApi } from './management';
import { resolveOptions, systemClock } from './options';
import type { Auth, AuthOptions } from './types';


function rejectUnknownKeys(opts: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) {
    throw new ValidationError([{ path: 'opts', message: 'must be an object' }]);
  }
  const bad = Reflect.ownKeys(opts).filter((k) => typeof k !== 'string' || !allowed.includes(k));
  if (bad.length > 0) throw new ValidationError(bad.map((k) => ({ path: `opts.${String(k)}`, message: 'unknown option' })));
  return opts as Record<string, unknown>;
}

/** Could `value` be a promise? A throwing `then` getter counts as one (and then rejects in `guarded`). */
function isThenable(value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return true;
  }
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
  const layers = new LayerCache(opts.layerCacheSize);
  const grants = new GrantCache(opts.grantCacheSize);

  const nowMs = opts.now === systemClock ? (): number => Date.now() : (): number => readClock(opts.now);
  const call = <T>(what: string, fn: () => T | Promise<T>): Promise<T> => guarded(fn, opts.storeTimeoutMs, what);
  // Off the request path (last-used.ts, events.ts): authenticate only hands them ids and events.
  const touch = opts.lastUsedIntervalMs > 0 && typeof store.touch === 'function' ? store.touch.bind(store) : undefined;
  const recorder =
    touch === undefined
      ? null
      : new LastUsedRecorder({ write: (ids, at) => call('token store', () => touch(ids, at)), intervalMs: opts.lastUsedIntervalMs });
  const events = opts.onEvent === undefined ? null : new EventDispatcher(opts.onEvent, { hookTimeoutMs: opts.storeTimeoutMs });
  /** The time of an event: a failing clock must not turn a refusal into something else. */
  const eventTime = (): Date => {
    try {
      return new Date(nowMs());
    } catch {
      return new Date();
    }
  };

  /**
   * The roles, read on every call (T5). A source that answers synchronously is
   * taken at its word without a promise or a deadline; a promise gets both.
   */
  function rolesOf(userId: string): UserRoles | Promise<UserRoles> {
    let got: UserRoles | Promise<UserRoles>;
    try {
      got = opts.members.rolesOf(userId);
    } catch (err) {
      throw failure(err, 'membership source');
    }
    return isThenable(got) ? call('membership source', () => got) : got;
  }

  function stateOf(p: Principal): PrincipalState {
    const state = principals.stateOf(p);
    if (state === undefined) {
      // The usual slip is passing the token text: say what is expected instead of "not a principal".
      const message =
        typeof p === 'object' && p !== null
          ? 'not a principal returned by this auth instance (copies are refused)'
          : `expected the Principal that auth.authenticate() returned, got ${p === null ? 'null' : typeof p}`;
      throw new ValidationError([{ path: 'principal', message }]);
    }
    return state;
  }

  async function readValidChain(claims: ChainClaims, at: number): Promise<readonly TokenRecord[]> {
    const chain = await call('token store', () => store.readChain(claims.jti));
    return checkChain(chain, claims, at);
  }

  /**
   * A store that offers `readChainSync` answers without a promise and a
   * deadline per request; `undefined` means it declined (then `readChain`).
   * Any throw fails closed as `UnavailableError` (T5).
   */
  function readChainNow(jti: string): readonly TokenRecord[] | null | undefined {
    if (typeof store.readChainSync !== 'function') return undefined;
    try {
      return store.readChainSync(jti);
    } catch (err) {
      throw failure(err, 'token store');
    }
  }

  /** The compiled layers of a chain's scoped records; only called on a grant-cache miss. */
  function scopedLayers(chain: readonly TokenRecord[] | null): CompiledLayer[] {
    const out: CompiledLayer[] = [];
    if (chain !== null) for (const r of chain) if (r.scopes !== null) out.push(layers.get(r));
    return out;
  }

  /**
   * A refusal leaving `authenticate`: when the signature verified, the error
   * carries the token id (never its value), and `auth.failed` is queued.
   */
  function refused(err: unknown, claims: TokenClaims | undefined): unknown {
    if (!(err instanceof AuthenticationError)) return err;
    const known = claims !== undefined && claims.kind !== 'session';
    const out =
      known && err.tokenId === undefined ? new AuthenticationError(err.reason, err.message, { cause: err.cause, tokenId: claims.jti }) : err;
    if (events !== null) {
      const actor: EventActor =
        claims === undefined
          ? { kind: 'unknown', userId: null, tokenId: null, tokenName: null }
          : { kind: claims.kind, userId: claims.sub, tokenId: known ? claims.jti : null, tokenName: null };
      events.emit(Object.freeze({ type: 'auth.failed', at: eventTime(), actor: Object.freeze(actor), reason: err.reason }));
    }
    return out;
  }

  async function authenticate(token: string): Promise<Principal> {
    let claims: TokenClaims | undefined;
    try {
      if (typeof token !== 'string') throw new AuthenticationError('malformed');
      if (token.length === 0) throw new AuthenticationError('missing');
      if (token.length > MAX_TOKEN_CHARS) throw new AuthenticationError('malformed');
      const at = nowMs();
      const nowSec = Math.floor(at / 1000);
      claims = verifier.verifyCached(token, nowSec) ?? (await verifier.verify(token, nowSec));
      // The frozen claims serve as the chain claims as they are (no copy per request).
      let chain: readonly TokenRecord[] | null = null;
      if (claims.kind !== 'session') {
        const now = readChainNow(claims.jti);
        chain = now === undefined ? await readValidChain(claims as TokenClaims & ChainClaims, at) : checkChain(now, claims as TokenClaims & ChainClaims, at);
      }
      // An in-process membership source answers without a promise (no await, no timer).
      const got = rolesOf(claims.sub);
      const roles = got instanceof Promise ? await got : got;
      let grant;
      try {
        grant = grants.get(chain === null ? null : (chain[0] as TokenRecord).id, roles, chain, scopedLayers);
      } catch (err) {
        // Bad role data is the membership source's fault; never an allow.
        throw new UnavailableError('membership source returned roles that are not valid', { cause: err });
      }
      const expiresAt = new Date(chain === null ? claims.exp * 1000 : chainExpiryMs(chain));
      // Last used: one Map lookup when throttled; the write happens later, elsewhere.
      if (chain !== null && recorder !== null) recorder.seen((chain[0] as TokenRecord).id, at);
      return principals.make(claims.kind, claims.sub, expiresAt, chain?.[0], grant, { roles, chain });
    } catch (err) {
      throw refused(err, claims);
    }
  }

  const ctx: ServiceContext = {
    issuer: opts.issuer,
    keys: opts.keys,
    store,
    nowMs,
    call,
    stateOf,
    events,
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
      events?.emit(createdEvent(new Date(at), SERVER_ACTOR, record));
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
      const revoked = await call('token store', () => store.revoke([tokenId], new Date(at)));
      events?.emit(revokedEvent(new Date(at), SERVER_ACTOR, tokenId, revoked));
    },

    async tokensOf(userId) {
      const id = checkUserId(userId, false);
      const all = await call('token store', () => store.listByOwner(id));
      if (!Array.isArray(all)) throw new UnavailableError('token store listByOwner did not return a list');
      const at = nowMs();
      return managedRecords(all, null).map((r) => toInfo(r, at));
    },

    async flush() {
      await Promise.all([recorder?.flush(), events?.flush()]);
    },
  };
  const frozen = Object.freeze(auth);
  if (events !== null) registerEvents(frozen, events, nowMs);
  return frozen;
}
