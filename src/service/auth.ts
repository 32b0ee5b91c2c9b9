/**
 * `createAuth`: the service layer (6). Authenticates credentials into
 * principals, decides with the policy core, issues sessions and component
 * tokens, and hands out token and session management (`client(p).token.*`,
 * `client(p).sessions.*`).
 * @module
 */
import { UnavailableError, ValidationError } from '../errors';
import { authorize as decide, type Grant } from '../core/policy';
import { MemoryTokenStore } from '../stores';
import { isKeyRing } from '../tokens';
import { addressOf, addressText, checkGrantChain, createAuthenticator, nonceForAnswer, ownerRoles } from './authenticate';
import type { ServiceContext } from './internals';
import { EventDispatcher, deniedReporter, revokedEvent, SERVER_ACTOR, flushDeadline, flushWithin } from './events';
import { guarded, readClock } from './deadlines';
import { checkIdentity, checkUserId, defaultIdentity } from './identity';
import { issuers, sweeper, purger, tokenApi, sessionApi, managedRecords, toInfo, checkNarrowing } from './manage';
import { leakReporter } from './leaks';
import { orgApi } from './orgs';
import { machineClients, serviceAccountApi, serviceAccountsApi } from './service-accounts';
import { resolveOptions, systemClock } from './options';
import { registerInternals, sessionRecorder } from './internals';
import type { Auth, AuthOptions } from './contract';
import { plainMint, workloadExchanger } from './workloads';

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
  const nowMs = opts.now === systemClock ? (): number => Date.now() : (): number => readClock(opts.now);
  const call = <T>(what: string, fn: () => T | Promise<T>): Promise<T> => guarded(fn, opts.storeTimeoutMs, what);
  const events = opts.onEvent === undefined ? null : new EventDispatcher(opts.onEvent, { hookTimeoutMs: opts.storeTimeoutMs });
  const { authenticate, authenticateRequest, authenticateRequestNow, principalFor, grantOf, stateOf, readValidChain, recheck, recorder } =
    createAuthenticator(opts, store, nowMs, call, events);
  const ctx: ServiceContext = {
    issuer: opts.issuer,
    keys: opts.keys,
    store,
    nowMs,
    call,
    stateOf,
    events,
    recheck,
    decide: (p, resource, permission) => decide(grantOf(p) as Grant, resource, permission),
    rolesOf: (() => {
      const of = ownerRoles(store, call, (userId) => opts.members.rolesOf(userId), false);
      return (userId: string) => call('membership source', () => of(userId));
    })(),
  };

  const issue = issuers(opts, store, nowMs, call, events);

  const auth: Auth = {
    authenticate,

    authenticateRequest,

    principalFor,

    authorize(p, resource, permission, thingName) {
      // Only a principal this instance made decides here. Another instance's
      // principal carries a real grant too (its members, its store), readable
      // under the policy layer's slot; handing `p` itself to the policy would
      // let it decide. `undefined` (anything not ours) is `invalid` there, and
      // the lookup is a private-field check: nothing is allocated.
      return decide(grantOf(p) as Grant, resource, permission, thingName);
    },

    client(p) {
      return Object.freeze({
        token: tokenApi(ctx, p),
        sessions: sessionApi(ctx, p),
        org: (name: string) =>
          Object.freeze({
            ...orgApi(ctx, p, name),
            serviceAccounts: serviceAccountsApi(ctx, p, name),
            serviceAccount: (account: string) => serviceAccountApi(ctx, p, name, account),
          }),
      });
    },

    ...issue,

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

    sweepExpiring: sweeper(store, nowMs, call, events),

    // Ended sessions' records, removed after a retention period.
    purge: purger(store, nowMs, call),

    // Leaked tokens: revoked by whoever reports them (service/leaks).
    reportLeaked: leakReporter({
      issuer: opts.issuer,
      keys: opts.keys,
      clockToleranceSec: opts.clockToleranceSec,
      trustedIssuers: opts.trustedIssuers,
      store,
      nowMs,
      call,
      events,
      // The same check as the request path's, on a chain read now.
      readGrantChain: async (c, at) => checkGrantChain(await call('token store', () => store.readChain(c.jti)), c, at),
      readValidChain,
    }),

    // Workload identity tokens for short-lived tokens of service accounts (W3).
    exchangeWorkloadToken: workloadExchanger({
      workloads: opts.trustedWorkloads,
      clockToleranceSec: opts.clockToleranceSec,
      store,
      nowMs,
      call,
      events,
      mint: plainMint({ issuer: opts.issuer, keys: opts.keys, store, call, events }),
      checkNarrowing,
    }),

    async flush(options) {
      const ms = flushDeadline(options, opts.storeTimeoutMs);
      await flushWithin(Promise.all([recorder?.flush(), events?.flush()]), ms);
    },
  };
  const frozen = Object.freeze(auth);
  registerInternals(frozen, {
    // An authorization server built on this Auth records its grants and access tokens here (svc-auth/oauth).
    records: sessionRecorder({ store, nowMs, call, events }),
    // The leak endpoints count clients by the address allowedIps sees (behind trustProxy: the client, not the proxy).
    clientAddress: (req, peer) => addressText(addressOf(req, peer, opts.trustProxy)) ?? undefined,
    denied: events === null ? null : deniedReporter({ events, nowMs, owns: (p) => grantOf(p) !== undefined }),
    // The authorization server finds a service account's machine clients here (client_credentials).
    machines: machineClients(store, call),
    // The authorization server offers the JWT bearer grant (RFC 7523) only when workloads are trusted.
    workloads: opts.trustedWorkloads.length > 0,
    // The guards and /mcp hand the current nonce to every DPoP request they answer (RFC 9449 §8.2).
    dpopNonce: nonceForAnswer(opts.dpopNonces, nowMs),
    authenticateRequestNow,
  });
  return frozen;
}
