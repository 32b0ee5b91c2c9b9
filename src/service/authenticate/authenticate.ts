/**
 * `authenticate`, the request path (T5): verify the JWT, read the token's
 * record chain, read the owner's roles, and hand back a Principal holding
 * the compiled grant. Nothing here allocates or awaits beyond what one
 * request needs: a store or membership source that answers synchronously is
 * taken without a promise.
 * @module
 */
import { AuthenticationError, ValidationError } from '../../errors';
import type { Principal, UserRoles } from '../../core/policy';
import type { TokenRecord, TokenStore } from '../../stores';
import {
  bearerTextFromRequest,
  type BearerRequest,
  checkBearerText,
  type DpopCredential,
  LIFETIMES,
  MAX_TOKEN_CHARS,
  TokenVerifier,
  type TokenClaims,
} from '../../tokens';
import { checkChain, chainExpiryMs } from './chain';
import { chainReads } from './reads';
import type { PrincipalState } from '../internals';
import { type EventDispatcher, recorderFor } from '../events';
import { principalFactory } from './principal';
import { grantSource } from './caches';
import { gateReader } from '../orgs';
import { failure, isThenable } from '../deadlines';
import { checkUserId } from '../identity';
import type { ResolvedOptions } from '../options';
import { issuerPath } from './issuer';
import { addressOf, addressText, AllowedIps, isRestricted, userAgentOf } from './origin';
import type { AuthenticateRequestOptions, RequestOrigin } from '../contract';
import { refusalReporter } from './refusal';
import type { IpAddress } from '../../core/network';
import { bindingCheck, boundKeyOf, isBound } from './dpop';
import type { Authenticator } from './authenticator';
import { drive, promised, type Steps } from './steps';
import { accountRefs, ownerRoles } from './accounts';

/**
 * @internal the request path of one Auth instance. `call` runs a store or
 * membership call under the deadline; `events` is null without `onEvent`.
 */
export function createAuthenticator(
  opts: ResolvedOptions,
  store: TokenStore,
  nowMs: () => number,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
  events: EventDispatcher | null,
): Authenticator {
  const verifier = new TokenVerifier({
    ring: opts.keys,
    issuer: opts.issuer,
    clockToleranceSec: opts.clockToleranceSec,
    cacheSize: opts.signatureCacheSize,
    maxLifetimeSec: { pat: LIFETIMES.pat.maxSec, session: LIFETIMES.session.maxSec, component: LIFETIMES.component.maxSec },
  });
  // Per-instance, never module-global: two Auth objects share nothing.
  // One memo of parsed account ids for the principal and the roles: a service account's id is parsed once, not twice a request.
  const refOf = accountRefs();
  const principals = principalFactory(refOf);
  const grants = grantSource(opts.layerCacheSize, opts.grantCacheSize);

  const allowedIps = new AllowedIps(opts.layerCacheSize);
  // Org policies (G2): null for a store that keeps none, which then costs nothing here.
  const gatesFor = gateReader(store, call);

  // Off the request path (events/last-used.ts, events/events.ts): authenticate only hands them ids and events.
  const recorder = recorderFor(store, opts.lastUsedIntervalMs, call);
  const refused = refusalReporter(events, nowMs);
  const binding = bindingCheck(opts, store, call);

  /**
   * The roles, read on every call (T5). A source that answers synchronously is
   * taken at its word without a promise or a deadline; a promise gets both.
   */
  function memberRolesOf(userId: string): UserRoles | Promise<UserRoles> {
    let got: UserRoles | Promise<UserRoles>;
    try {
      got = opts.members.rolesOf(userId);
    } catch (err) {
      throw failure(err, 'membership source');
    }
    return isThenable(got) ? call('membership source', () => got) : got;
  }

  // A service account's roles come from its record, never from the membership source (W1, W2).
  const rolesOf = ownerRoles(store, call, memberRolesOf, true, opts.storeTimeoutMs, refOf);

  const { readValidChain, readRequestChain, readChainNow } = chainReads(store, call, opts.storeTimeoutMs);

  // Trusted issuers' access tokens (T10) take their own path; null without `trustedIssuers`.
  const issuers = issuerPath(opts, {
    rolesOf,
    grants,
    principals,
    chainOf: (id) => {
      const now = readChainNow(id);
      return now === undefined ? call('token store', () => store.readChain(id)) : now;
    },
    nowMs,
    seen: (id, at) => recorder?.seen(id, at),
  });

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

  /**
   * The request path. `req` (with the peer `address` handed over for it), or
   * the `address` and `userAgent` given to `authenticate`, say where the
   * request came from; they are read only when a record limits addresses or
   * a last use is due to be written. Plain arguments, not an object: nothing
   * is allocated for them on a request that needs neither. Steps (`drive`):
   * each `yield` is a promise waited for; a value at hand is taken at once.
   */
  function* requestSteps(
    token: string,
    req: BearerRequest | undefined,
    address: unknown,
    userAgent: unknown,
    dpop?: DpopCredential,
  ): Steps<Principal> {
    let claims: TokenClaims | undefined;
    let client: IpAddress | undefined | null = null; // null: not read yet
    try {
      if (typeof token !== 'string') throw new AuthenticationError('malformed');
      if (token.length === 0) throw new AuthenticationError('missing');
      if (token.length > MAX_TOKEN_CHARS) throw new AuthenticationError('malformed');
      const at = nowMs();
      const nowSec = Math.floor(at / 1000);
      claims = verifier.verifyCached(token, nowSec);
      // A header's token was read without checking its characters (bearerTextFromRequest):
      // a cache hit is a text verified before, anything else is checked here, first (H1).
      if (claims === undefined && req !== undefined) checkBearerText(token);
      if (claims === undefined && issuers !== null) {
        // Not one of ours seen before: maybe a trusted issuer's (undefined: it is not, ours answers).
        const foreign = issuers.cached(token, nowSec) ?? issuers.route(token, nowSec);
        if (foreign !== undefined) {
          const verified = foreign instanceof Promise ? ((yield foreign) as Awaited<typeof foreign>) : foreign;
          // A token bound to a key (RFC 9449) is taken only with a proof by that key; an unbound one only as Bearer.
          if (verified.jkt !== null || dpop !== undefined) yield binding.check(verified.jkt, token, dpop, req, address, at);
          const p = issuers.principal(verified);
          return p instanceof Promise ? ((yield p) as Principal) : p;
        }
      }
      claims ??= (yield verifier.verify(token, nowSec)) as TokenClaims;
      // A bound PAT names its key in its record, not in the JWT: its proof is checked and its replay claim
      // sent now, beside the chain read (one round trip's wait on a shared store), and compared once read.
      const started = dpop === undefined ? undefined : binding.start(token, dpop, req, address, at);
      // A service account's roles are in its record, whose id its token names: read beside the chain (one
      // round trip's wait on a shared store). A refusal it meets is kept for its turn, after the chain's.
      let early: UserRoles | Promise<UserRoles> | undefined;
      let earlyRefusal: { err: unknown } | undefined;
      if (claims.sub.startsWith('sa:')) {
        try {
          early = rolesOf(claims.sub);
          // Taken only if the chain holds: a rejection before then is no unhandled one.
          if (early instanceof Promise) early.catch(() => undefined);
        } catch (err) {
          earlyRefusal = { err };
        }
      }
      // Every kind has a record, sessions too (T3, T5). The frozen claims serve
      // as the chain claims as they are (no copy per request).
      const now = readChainNow(claims.jti);
      const chain = now === undefined ? ((yield readRequestChain(claims, at)) as readonly TokenRecord[]) : checkChain(now, claims, at);
      const head = chain[0] as TokenRecord;
      // An unbound chain without a DPoP header (nearly every request) costs one field read per record.
      if (started !== undefined || isBound(chain)) {
        const bound = binding.finish(boundKeyOf(chain), started);
        if (bound !== undefined) yield bound;
      }
      if (isRestricted(chain)) {
        client = addressOf(req, address, opts.trustProxy);
        allowedIps.check(chain, client);
      }
      // An in-process membership source answers without a promise (no await, no timer).
      if (earlyRefusal !== undefined) throw earlyRefusal.err;
      const got = early ?? rolesOf(claims.sub);
      const roles = got instanceof Promise ? ((yield got) as UserRoles) : got;
      // Only PATs (and their children) answer to org policies; sessions and component tokens do not (G3).
      const gates = gatesFor === null || claims.kind !== 'pat' ? null : gatesFor(chain, roles);
      const grant = grants.ofChain(chain, roles, gates instanceof Promise ? ((yield gates) as Awaited<typeof gates>) : gates);
      const expiresAt = new Date(chainExpiryMs(chain));
      // Last used: one Map lookup when throttled; the write happens later, elsewhere.
      if (recorder !== null && recorder.due(head.id, at)) {
        const from = client === null ? addressOf(req, address, opts.trustProxy) : client;
        recorder.record(head.id, at, addressText(from), userAgentOf(req, userAgent));
      }
      return principals.make(claims.kind, claims.sub, expiresAt, head, grant, { roles, chain });
    } catch (err) {
      throw refused(err, claims);
    }
  }

  /** The request path as a promise: never throws, rejects with the refusal. */
  function authenticateFrom(
    token: string,
    req: BearerRequest | undefined,
    address: unknown,
    userAgent: unknown,
    dpop?: DpopCredential,
  ): Promise<Principal> {
    return promised(() => drive(requestSteps(token, req, address, userAgent, dpop)));
  }

  function authenticate(token: string, origin?: RequestOrigin): Promise<Principal> {
    let address: unknown;
    let userAgent: unknown;
    try {
      address = origin?.address;
      userAgent = origin?.userAgent;
    } catch {
      // An origin that cannot be read is no origin: unknown address, no user agent.
    }
    return authenticateFrom(token, undefined, address, userAgent);
  }

  /**
   * `authenticateRequest` in the caller's turn: the principal at once when nothing had to wait (a hot
   * token on an in-process store), else a promise. Throws the refusal when it came before any wait.
   */
  function authenticateRequestNow(req: BearerRequest, address: unknown): Principal | Promise<Principal> {
    let token: string;
    let dpop: DpopCredential | undefined;
    try {
      const got = bearerTextFromRequest(req);
      if (typeof got === 'string') token = got;
      else ({ token, dpop } = { token: got.token, dpop: got });
    } catch (err) {
      // No header, another scheme, two tokens: refused before any token is read,
      // and reported like every other refusal (every adapter comes through here).
      // bearerTextFromRequest throws only AuthenticationError; anything else still refuses.
      const refusal = err instanceof AuthenticationError ? err : new AuthenticationError('malformed');
      refused(refusal, undefined); // reported; nothing was verified, so there is no token id to add
      throw refusal;
    }
    return drive(requestSteps(token, req, address, undefined, dpop));
  }

  function authenticateRequest(req: BearerRequest, options?: AuthenticateRequestOptions): Promise<Principal> {
    // Not `async`: a second promise wrapping the path's own was a measurable share of a guarded request.
    let peer: unknown;
    try {
      peer = options?.address;
    } catch {
      peer = undefined;
    }
    return promised(() => authenticateRequestNow(req, peer));
  }

  async function principalFor(userId: string): Promise<Principal> {
    const id = checkUserId(userId, opts.identityOf === undefined);
    // A session principal with roles read now; no token, so no record (nothing to revoke or list).
    const at = nowMs();
    const got = rolesOf(id);
    const roles = got instanceof Promise ? await got : got;
    const grant = grants.ofRoles(roles);
    const expiresAt = new Date((Math.floor(at / 1000) + LIFETIMES.session.defaultSec) * 1000);
    return principals.make('session', id, expiresAt, undefined, grant, { roles, chain: null });
  }

  async function recheck(p: Principal): Promise<readonly TokenRecord[] | null> {
    const at = nowMs();
    const state = stateOf(p);
    if (state.chain === null) {
      if (at >= p.expiresAt.getTime()) throw new AuthenticationError('expired');
      return null;
    }
    const head = state.chain[0] as TokenRecord;
    return readValidChain({ kind: head.kind, sub: p.userId, jti: head.id, exp: head.expiresAt.getTime() / 1000 }, at);
  }

  return {
    authenticate,
    authenticateRequest,
    authenticateRequestNow,
    principalFor,
    grantOf: (p: unknown) => principals.grantOf(p),
    stateOf,
    readValidChain,
    recheck,
    recorder,
  };
}
