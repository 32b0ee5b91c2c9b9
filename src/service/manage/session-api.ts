/**
 * The SDK namespace `client(principal).sessions.*`: a signed-in user sees and
 * ends their own sessions (T3). Only a session may: a PAT or a component token
 * is refused, so a credential handed to a script can neither list its user's
 * sign-ins nor end them.
 * @module
 */
import { ForbiddenError, NotFoundError, UnavailableError, ValidationError } from '../../errors';
import type { Principal } from '../../core/policy';
import type { TokenRecord } from '../../stores';
import type { ServiceContext } from '../internals';
import { actorOf, revokedEvent } from '../events';
import type { SessionApi, SessionInfo } from '../contract';
import { narrowedRefusal } from './narrowing';
import { toSessionInfo } from './token-info';

/** Longest id `revoke` looks up (as `auth.revokeToken`): ids are 22 characters; anything far longer is input to refuse, not to send to a store. */
const MAX_ID_LENGTH = 256;

/** The same answer for an unknown id and for another user's: nothing leaks. */
const NOT_YOURS = 'no session with this id among your sessions';

function checkId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    throw new ValidationError([{ path: 'id', message: `must be a session id (a string of 1 to ${MAX_ID_LENGTH} characters)` }]);
  }
  return id;
}

/**
 * Build `client(p).sessions` for a principal of `ctx`.
 *
 * @example
 * ```ts
 * const api = sessionApi(ctx, principal);
 * const mine = await api.list();
 * ```
 */
export function sessionApi(ctx: ServiceContext, p: Principal): SessionApi {
  const state = ctx.stateOf(p); // a copy or a foreign principal fails here, when the client is made (as `token`)
  const userId = p.userId;

  async function begin(): Promise<void> {
    if (p.kind !== 'session') {
      const what = p.kind === 'pat' ? 'a personal access token' : 'a component token';
      throw new ForbiddenError(`${what} may not see or end sessions: only a session of the user can`);
    }
    // A client granted only some permissions (an MCP client's repo:read) must not see or end its user's sign-ins.
    if (state.narrowing !== undefined) throw narrowedRefusal(state, 'see or end sessions');
    // The caller's own session may have been ended since it was authenticated (T5).
    await ctx.recheck(p);
  }

  /** The session record `id` of this user, fresh from the store; `NotFoundError` for anything else. */
  async function ownSession(id: string): Promise<TokenRecord> {
    const chain = await ctx.call('token store', () => ctx.store.readChain(id));
    if (chain !== null && !Array.isArray(chain)) throw new UnavailableError('token store readChain did not return a chain');
    const head: unknown = chain?.[0];
    if (head === undefined) throw new NotFoundError(NOT_YOURS);
    const rec = head as TokenRecord;
    if (rec.id !== id || rec.kind !== 'session' || rec.ownerId !== userId) throw new NotFoundError(NOT_YOURS);
    if (!(rec.expiresAt instanceof Date) || !(rec.createdAt instanceof Date)) {
      throw new UnavailableError('token store returned a malformed record');
    }
    return rec;
  }

  return Object.freeze({
    async list(): Promise<SessionInfo[]> {
      await begin();
      const all = await ctx.call('token store', () => ctx.store.listByOwner(userId));
      if (!Array.isArray(all)) throw new UnavailableError('token store listByOwner did not return a list');
      const at = ctx.nowMs();
      // A session record with a parent is an access token of an authorization server's grant
      // (svc-auth/oauth): the grant is listed once, and ending it ends its access tokens (T6).
      return all
        .filter((r) => r.kind === 'session' && r.ownerId === userId && r.parentId === null)
        .map((r) => toSessionInfo(r, at, p.tokenId));
    },

    async revoke(id: string): Promise<SessionInfo> {
      await begin();
      const wanted = checkId(id);
      const rec = await ownSession(wanted);
      if (rec.revokedAt !== null) return toSessionInfo(rec, ctx.nowMs(), p.tokenId);
      const at = ctx.nowMs();
      const revoked = await ctx.call('token store', () => ctx.store.revoke([rec.id], new Date(at)));
      ctx.events?.emit(revokedEvent(new Date(at), actorOf(p), rec.id, revoked));
      return toSessionInfo(await ownSession(rec.id), at, p.tokenId);
    },
  });
}
