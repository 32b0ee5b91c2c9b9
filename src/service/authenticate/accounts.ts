/**
 * The roles of a service account (W1, W2): from its own record, read on every
 * use of one of its credentials, so that a lowered role narrows them and a
 * disabled account refuses them on the next request. Never from the
 * membership source: an `sa:` id is no user's (`checkUserId` refuses the form).
 * @module
 */
import { AuthenticationError, UnavailableError } from '../../errors';
import type { UserRoles } from '../../core/policy';
import { parseServiceAccountId, SERVICE_ACCOUNT_PREFIX, type ServiceAccountRef } from '../../core/vocabulary';
import { BOUNDED_ACCOUNT, type BoundedAccountSource, type ServiceAccountRecord, type TokenStore } from '../../stores';
import { failure, isThenable } from '../deadlines';

type Call = <T>(what: string, fn: () => T | Promise<T>) => Promise<T>;

/** @internal The roles an account's record gives: its role on its org, nothing else. */
export function rolesOfAccount(account: ServiceAccountRecord): UserRoles {
  return Object.freeze({ orgs: Object.freeze({ [account.org]: account.role }), repos: Object.freeze({}) });
}

// Parsed account ids remembered per Auth; past it the memo starts over (a flood costs a parse each, never memory).
const MAX_ACCOUNT_REFS = 1024;

/**
 * @internal `parseServiceAccountId`, remembered per id: an account's credential names the same id on
 * every request, and both its principal and its roles need it parsed. Each ref is frozen, as one is
 * shared by every principal of the account. Answers exactly as `parseServiceAccountId`.
 *
 * @example
 * ```ts
 * const refOf = accountRefs();
 * refOf('sa:acme/ci-bot'); // { org: 'acme', name: 'ci-bot' }, the same frozen object next time
 * refOf('alice'); // null
 * ```
 */
export function accountRefs(): (userId: string) => ServiceAccountRef | null {
  const seen = new Map<string, ServiceAccountRef>();
  return (userId) => {
    if (!userId.startsWith(SERVICE_ACCOUNT_PREFIX)) return null;
    let ref = seen.get(userId);
    if (ref === undefined) {
      const parsed = parseServiceAccountId(userId);
      if (parsed === null) return null;
      if (seen.size >= MAX_ACCOUNT_REFS) seen.clear();
      seen.set(userId, (ref = Object.freeze(parsed)));
    }
    return ref;
  };
}

/**
 * @internal Read an account now; `null` when there is none. A store that keeps no
 * service accounts is `UnavailableError` (fail closed). An answer without a promise
 * is taken without one (the memory store's), so the request path spares a timer;
 * with `withinMs` (the request path), so is one from a store that bounds the read
 * itself (BOUNDED_ACCOUNT in stores/views.ts, as chains are read).
 *
 * @example
 * ```ts
 * const got = readAccount(store, call, { org: 'acme', name: 'ci-bot' });
 * const account = got instanceof Promise ? await got : got;
 * ```
 */
export function readAccount(
  store: TokenStore,
  call: Call,
  ref: ServiceAccountRef,
  withinMs?: number,
): ServiceAccountRecord | null | Promise<ServiceAccountRecord | null> {
  if (typeof store.readServiceAccount !== 'function') throw new UnavailableError('this token store keeps no service accounts');
  let got: ServiceAccountRecord | null | Promise<ServiceAccountRecord | null>;
  try {
    const bounded = withinMs === undefined ? undefined : (store as BoundedAccountSource)[BOUNDED_ACCOUNT];
    const own = typeof bounded === 'function' ? bounded.call(store, ref.org, ref.name, withinMs as number) : undefined;
    if (own !== undefined) return own.catch((err: unknown) => Promise.reject(failure(err, 'token store')));
    got = store.readServiceAccount(ref.org, ref.name);
  } catch (err) {
    throw new UnavailableError('token store readServiceAccount failed', { cause: err });
  }
  return isThenable(got) ? call('token store', () => got as Promise<ServiceAccountRecord | null>) : got;
}

function usable(
  account: ServiceAccountRecord | null,
  ref: ServiceAccountRef,
  strict: boolean,
  roles: (account: ServiceAccountRecord) => UserRoles,
): UserRoles {
  // Management (an org's inventory, its rules at creation) sees a gone or disabled account as holding nothing.
  if (!strict && (account === null || account.disabled)) return Object.freeze({});
  if (account === null) throw new AuthenticationError('revoked', `the service account ${ref.org}/${ref.name} no longer exists`);
  if (account.disabled) throw new AuthenticationError('revoked', `the service account ${ref.org}/${ref.name} is disabled`);
  return roles(account);
}

/**
 * @internal The roles of a credential's owner on the request path: an account's from its
 * record (a missing or disabled account is `AuthenticationError` `revoked`; with `strict`
 * false, no roles), anyone else's from `members`. One prefix test for a person. `withinMs`:
 * the request path's store deadline (see {@link readAccount}).
 *
 * @example
 * ```ts
 * const rolesOf = ownerRoles(store, call, (id) => members.rolesOf(id));
 * const roles = await rolesOf('sa:acme/ci-bot'); // { orgs: { acme: 'editor' }, repos: {} }
 * ```
 */
export function ownerRoles(
  store: TokenStore,
  call: Call,
  members: (userId: string) => UserRoles | Promise<UserRoles>,
  strict = true,
  withinMs?: number,
  refOf: (userId: string) => ServiceAccountRef | null = parseServiceAccountId,
): (userId: string) => UserRoles | Promise<UserRoles> {
  // A store that hands out its frozen record (the memory store, PostgreSQL's request path) gets the
  // same roles back while the record is the same object: no three frozen objects made per request.
  // A changed account is a new record, so a lowered role is seen on the next request.
  const known = new WeakMap<ServiceAccountRecord, UserRoles>();
  const roles = (account: ServiceAccountRecord): UserRoles => {
    if (!Object.isFrozen(account)) return rolesOfAccount(account);
    let got = known.get(account);
    if (got === undefined) known.set(account, (got = rolesOfAccount(account)));
    return got;
  };
  return (userId) => {
    const ref = refOf(userId);
    if (ref === null) {
      // A malformed `sa:` id is nobody's: refused, never handed to the membership source.
      if (userId.startsWith(SERVICE_ACCOUNT_PREFIX)) throw new AuthenticationError('revoked', 'not a service account this service knows');
      return members(userId);
    }
    const got = readAccount(store, call, ref, withinMs);
    return got instanceof Promise ? got.then((a) => usable(a, ref, strict, roles)) : usable(got, ref, strict, roles);
  };
}
