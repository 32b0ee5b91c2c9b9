/**
 * Who may manage an org's service accounts, and the account store: the one
 * check every call of `org(o).serviceAccounts` and `.serviceAccount(n)` makes
 * first (W1).
 * @module
 */
import { ConflictError, ForbiddenError, NotFoundError, UnavailableError } from '../../errors';
import type { Principal } from '../../core/policy';
import { ROLES, type RoleName, type ServiceAccountRef } from '../../core/vocabulary';
import type { ServiceAccountRecord, TokenStore } from '../../stores';
import type { ServiceContext } from '../internals';
import { checkOrg, orgRoleOf } from '../orgs';
import { readAccount } from '../authenticate';

/** @internal A store that keeps service accounts. */
export type AccountStore = TokenStore & Required<Pick<TokenStore, 'readServiceAccount' | 'listServiceAccounts' | 'putServiceAccount'>>;

/** @internal What a call may act with: the org, the store, and the caller's own role there. */
export interface Admitted {
  readonly org: string;
  readonly store: AccountStore;
  readonly callerRole: RoleName;
}

/** Higher is more: owner 3, admin 2, editor 1, viewer 0. */
const rank = (role: RoleName): number => ROLES.length - 1 - ROLES.indexOf(role);

/**
 * @internal Refuse a role above the caller's own on the org (W1): an admin cannot make, or hand
 * out tokens of, an account that can do more than the admin can.
 *
 * @example
 * ```ts
 * checkRank('owner', 'admin', 'acme'); // throws ForbiddenError
 * ```
 */
export function checkRank(role: RoleName, callerRole: RoleName, org: string): void {
  if (rank(role) > rank(callerRole)) {
    throw new ForbiddenError(`a service account's role may not exceed your own role on '${org}' (${callerRole}); this one is ${role}`);
  }
}

/**
 * @internal Admit the caller: rechecked (T5), `org:admin` on the org, no component token, and a
 * store that keeps service accounts.
 *
 * @example
 * ```ts
 * const { org, store, callerRole } = await admit(ctx, p, 'acme');
 * ```
 */
export async function admit(ctx: ServiceContext, p: Principal, orgName: unknown): Promise<Admitted> {
  const org = checkOrg(orgName);
  if (p.kind === 'component') throw new ForbiddenError(`component tokens may not manage service accounts (org:admin on '${org}')`);
  await ctx.recheck(p);
  if (!ctx.decide(p, org, 'org:admin').allowed) throw new ForbiddenError(`this credential lacks org:admin on '${org}'`);
  const callerRole = orgRoleOf(ctx.stateOf(p).roles, org) as RoleName | undefined;
  if (callerRole === undefined || !ROLES.includes(callerRole)) throw new ForbiddenError(`this credential holds no role on '${org}'`);
  const s = ctx.store;
  if (
    typeof s.readServiceAccount !== 'function' ||
    typeof s.listServiceAccounts !== 'function' ||
    typeof s.putServiceAccount !== 'function'
  ) {
    throw new UnavailableError('this token store keeps no service accounts');
  }
  return { org, store: s as AccountStore, callerRole };
}

/**
 * @internal The account, or `NotFoundError`.
 *
 * @example
 * ```ts
 * const account = await existing(ctx, { org: 'acme', name: 'ci-bot' });
 * ```
 */
export async function existing(ctx: ServiceContext, ref: ServiceAccountRef): Promise<ServiceAccountRecord> {
  const got = readAccount(ctx.store, (what, fn) => ctx.call(what, fn), ref);
  const account = got instanceof Promise ? await got : got;
  if (account === null) throw new NotFoundError(`the org '${ref.org}' has no service account named '${ref.name}'`);
  return account;
}

/**
 * @internal Change an account with the store's compare-and-set: read, apply `next`, store; again
 * from a fresh read when another change came first (a few times, then `ConflictError`).
 *
 * @example
 * ```ts
 * const { before, after } = await changeAccount(ctx, store, ref, (a) => ({ ...a, disabled: true }));
 * ```
 */
export async function changeAccount(
  ctx: ServiceContext,
  store: AccountStore,
  ref: ServiceAccountRef,
  next: (current: ServiceAccountRecord) => Omit<ServiceAccountRecord, 'version'>,
): Promise<{ before: ServiceAccountRecord; after: ServiceAccountRecord }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await existing(ctx, ref);
    const after: ServiceAccountRecord = Object.freeze({ ...next(before), version: before.version + 1 });
    if ((await ctx.call('token store', () => store.putServiceAccount(after))) === true) return { before, after };
  }
  throw new ConflictError(`the service account ${ref.org}/${ref.name} kept changing while this change was made; try again`);
}
