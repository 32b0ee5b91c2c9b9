/**
 * Contract of `client(principal).sessions.*`: a user's own sessions, seen and
 * ended. A session is what `auth.issueSession` mints after a sign-in; each has
 * a record, read on every request like a PAT's (T3, T5), so ending one holds
 * on its next request.
 * @module
 */
import type { UsedFrom } from '../../stores';
import type { LastUse } from './tokens';

/**
 * A session as `client(p).sessions` shows it. It never carries the token value.
 *
 * @example
 * ```ts
 * import { createAuth, generateKeyRing, type SessionInfo } from 'svc-auth';
 * const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
 * const me = await auth.authenticate(await auth.issueSession('alice', { name: 'laptop' }));
 * const sessions: SessionInfo[] = await auth.client(me).sessions.list();
 * sessions[0]?.name;    // 'laptop'
 * sessions[0]?.current; // true: the session `me` was authenticated with
 * ```
 */
export interface SessionInfo {
  /** The session's id (its JWT `jti`): `sessions.revoke(id)` and `auth.revokeToken(id)` take it. */
  id: string;
  /**
   * The label given to `issueSession` (`name`), `'session'` by default; several sessions may share one.
   * A grant of `svc-auth/oauth`'s authorization server is named `oauth-<client id>` (never the
   * client's self-chosen name).
   */
  name: string;
  /**
   * What the session is, when its issuer said: for a grant of `svc-auth/oauth`'s authorization
   * server, the client's name (as the app gave it), its client id, the host it returns to (or
   * `device`), and the permissions granted (`full access` for the svc command line); else `null`.
   */
  description: string | null;
  /** Derived when read (T4): `revoked` if ended, else `expired` once now >= `expiresAt`, else `active`. */
  status: 'active' | 'expired' | 'revoked';
  /** When it was issued, in whole seconds (the JWT `iat`). */
  createdAt: Date;
  /** When it stops authenticating, in whole seconds (the JWT `exp`). */
  expiresAt: Date;
  /** When it was ended (`sessions.revoke`, `auth.revokeToken`, `svc auth logout`), or `null`. */
  revokedAt: Date | null;
  /**
   * When `authenticate` last accepted it (recorded at most once per `lastUsedIntervalMs`); `null` if
   * never. For a grant of an authorization server: when any of its access tokens was last accepted.
   */
  lastUsedAt: Date | null;
  /**
   * The last recorded use: when, from which client address, with which user agent (each
   * `null` when not known), so that a person can tell a sign-in they do not recognise;
   * `null` if never used. The same view as `TokenInfo.lastUsed`.
   */
  lastUsed: LastUse | null;
  /** The last few distinct client addresses it was used from (at most 5), newest first. */
  usedFrom: UsedFrom[];
  /** Whether this is the session the caller authenticated with (a grant: by one of its access tokens). */
  current: boolean;
}

/**
 * The SDK namespace `client(principal).sessions.*`: the caller's own sessions.
 * Only a session may use it (it sees and ends its own user's sessions); a PAT or
 * a component token is refused every call with `ForbiddenError`, so a token
 * handed to a script can never end its user's sign-ins. Token management
 * (`client(p).token.*`) never lists sessions.
 *
 * @example
 * ```ts
 * import { createAuth, generateKeyRing } from 'svc-auth';
 * const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
 * const phone = await auth.issueSession('alice', { name: 'phone' });
 * const me = await auth.authenticate(await auth.issueSession('alice', { name: 'laptop' }));
 * const other = (await auth.client(me).sessions.list()).find((s) => !s.current && s.status === 'active');
 * if (other) await auth.client(me).sessions.revoke(other.id); // the phone is signed out on its next request
 * await auth.authenticate(phone).catch((err: unknown) => console.log(err)); // AuthenticationError, reason 'revoked'
 * ```
 */
export interface SessionApi {
  /**
   * Every session of the caller's user, of every status, in the order they were issued.
   * `ForbiddenError` for a PAT or component token; `AuthenticationError` when the caller's
   * own session has been revoked or has expired since it was authenticated.
   */
  list(): Promise<SessionInfo[]>;
  /**
   * End one of the caller's user's sessions by id (the current one too): it is refused from its
   * next request on. A session already ended is returned unchanged. `NotFoundError` for an id
   * that is not one of this user's sessions (another user's, a PAT's, an unknown one: nothing
   * leaks); `ValidationError` for an id that is not a string of 1 to 256 characters;
   * `ForbiddenError` for a PAT or component token caller.
   */
  revoke(id: string): Promise<SessionInfo>;
}

/**
 * Options of `auth.purge`.
 *
 * @example
 * ```ts
 * const options: PurgeOptions = { olderThan: '90d' };
 * ```
 */
export interface PurgeOptions {
  /**
   * How long a session's record is kept after the session ended (expired or
   * was revoked): `<N>d` or a whole number of days, 1 to 3650. Default `'90d'`.
   */
  olderThan?: string | number;
}

/**
 * The purge of session records, a part of `Auth`.
 *
 * @example
 * ```ts
 * const part: SessionPurge = auth;
 * await part.purge({ olderThan: '90d' });
 * ```
 */
export interface SessionPurge {
  /**
   * Remove the records of sessions that ended (expired, or were revoked) more
   * than `olderThan` ago, so that sign-ins do not add rows forever: each with
   * the records under it (an OAuth grant's record goes with its access tokens'
   * records), never leaving a record whose parent is missing. PATs and
   * component tokens are kept, for audit, and so is a session with a PAT below
   * it. Resolves to how many records were removed. Run it on a timer or from
   * cron (`svc serve` does, daily by default); servers may run it at once.
   * Server-side: needs no credential.
   *
   * Throws `ValidationError` for bad options, or when the token store has no
   * `purgeSessions` (the three stores of svc-auth have it); `UnavailableError`
   * when the store fails (what was removed before stays removed).
   *
   * @example
   * ```ts
   * import { createAuth, generateKeyRing } from 'svc-auth';
   * const auth = createAuth({ issuer: 'https://svc.example', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
   * const removed = await auth.purge({ olderThan: '90d' }); // 0: nothing ended that long ago
   * ```
   */
  purge(options?: PurgeOptions): Promise<number>;
}
