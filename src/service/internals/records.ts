/**
 * Session records written for another issuer: an authorization server built
 * on this `Auth` (`svc-auth/oauth`) mints its access tokens itself, and records
 * each grant and each access token here, in the `Auth`'s own token store, so
 * that a recorded trusted issuer's tokens are read like sessions on every
 * request (T5) and end with their grant (T6). Reached through the `Auth`'s
 * internals (`internalsOf(auth).records`), not through a public method: only
 * code that holds the `Auth` can write, and only sessions.
 * @module
 */
import { UnavailableError, ValidationError } from '../../errors';
import type { TokenRecord, TokenStore } from '../../stores';
import { revokedEvent, SERVER_ACTOR, type EventDispatcher } from '../events';

/** @internal What a session record of another issuer says. */
export interface ForeignSession {
  /** The record id: the grant's id, or the access token's `jti`. */
  readonly id: string;
  readonly userId: string;
  /** A label (`sessions.list()` shows it): 1 to 64 of `A-Z a-z 0-9 _ -`. */
  readonly name: string;
  readonly description: string | null;
  /** The grant's record, for an access token; `null` for a grant. */
  readonly parentId: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** @internal The writer an `Auth` hands to its authorization server. */
export interface SessionRecorder {
  /** Store a record; `'parent_inactive'` when its parent is missing, revoked or expired (nothing stored). */
  record(session: ForeignSession): Promise<'ok' | 'parent_inactive'>;
  /** Revoke a record and its subtree now (T6); an unknown id does nothing. */
  revoke(id: string): Promise<void>;
  /** Is the record `id` there, neither revoked nor expired (nor an ancestor)? */
  active(id: string): Promise<boolean>;
  /** `userId`'s active top-level session records named `name` (one client's grants), with their descriptions. */
  activeNamed(userId: string, name: string): Promise<{ id: string; description: string | null }[]>;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** @internal The recorder of one `Auth` (by `createAuth`, once, for its internals). */
export function sessionRecorder(deps: {
  store: TokenStore;
  nowMs: () => number;
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>;
  events: EventDispatcher | null;
}): SessionRecorder {
  const { store, nowMs, call, events } = deps;
  return Object.freeze({
    async record(s: ForeignSession): Promise<'ok' | 'parent_inactive'> {
      if (!NAME.test(s.name) || !(s.expiresAt instanceof Date) || !(s.createdAt instanceof Date)) {
        throw new ValidationError([{ path: 'session', message: 'not a session record this service can store' }]);
      }
      const record: TokenRecord = Object.freeze({
        id: s.id,
        kind: 'session' as const,
        ownerId: s.userId,
        name: s.name,
        description: s.description,
        scopes: null,
        parentId: s.parentId,
        createdAt: s.createdAt,
        expiresAt: s.expiresAt,
        revokedAt: null,
        committerIdentity: null,
      });
      const result = await call('token store', () => store.insert(record, new Date(nowMs())));
      if (result === 'ok' || result === 'parent_inactive') return result;
      throw new UnavailableError(`token store refused a session record (${String(result)})`);
    },
    async revoke(id: string): Promise<void> {
      const at = nowMs();
      const revoked = await call('token store', () => store.revoke([id], new Date(at)));
      events?.emit(revokedEvent(new Date(at), SERVER_ACTOR, id, revoked));
    },
    async active(id: string): Promise<boolean> {
      const chain = await call('token store', () => store.readChain(id));
      if (chain === null || chain.length === 0 || chain[0]?.id !== id) return false;
      const at = nowMs();
      return chain.every((r) => r.revokedAt === null && at < r.expiresAt.getTime());
    },
    async activeNamed(userId: string, name: string): Promise<{ id: string; description: string | null }[]> {
      const records = await call('token store', () => store.listByOwner(userId));
      const at = nowMs();
      return records
        .filter((r) => r.kind === 'session' && r.parentId === null && r.name === name && r.revokedAt === null && at < r.expiresAt.getTime())
        .map((r) => ({ id: r.id, description: r.description }));
    },
  });
}
