/**
 * `client(p).org(o).serviceAccounts` and `.serviceAccount(n)`: an org admin's
 * face for machines (W1, W2). Every call admits the caller first (access.ts).
 * @module
 */
import { ConflictError, ForbiddenError } from '../../errors';
import type { Principal } from '../../core/policy';
import { serviceAccountId, type ServiceAccountRef } from '../../core/vocabulary';
import type { ServiceAccountRecord } from '../../stores';
import type { ServiceContext } from '../internals';
import type { ServiceAccountApi, ServiceAccountInfo, ServiceAccountsApi } from '../contract';
import { ownedTokenApi, type TokenOwner } from '../manage';
import { rolesOfAccount } from '../authenticate';
import { admit, changeAccount, checkRank, existing, type AccountStore } from './access';
import { checkAccountName, checkCreate, checkUpdate } from './input';
import { emitAccount, toAccountInfo } from './view';
import { machineClientsApi } from './clients';

const wholeSeconds = (ms: number): Date => new Date(Math.floor(ms / 1000) * 1000);

/**
 * Build `client(p).org(org).serviceAccounts`.
 *
 * @example
 * ```ts
 * const accounts = serviceAccountsApi(ctx, admin, 'acme');
 * await accounts.create({ name: 'ci-bot', role: 'editor' });
 * ```
 */
export function serviceAccountsApi(ctx: ServiceContext, p: Principal, orgName: string): ServiceAccountsApi {
  ctx.stateOf(p);
  return Object.freeze({
    async create(input: unknown): Promise<ServiceAccountInfo> {
      const checked = checkCreate(input);
      const { org, store, callerRole } = await admit(ctx, p, orgName);
      checkRank(checked.role, callerRole, org);
      const at = wholeSeconds(ctx.nowMs());
      const record: ServiceAccountRecord = Object.freeze({
        org,
        name: checked.name,
        role: checked.role,
        description: checked.description,
        disabled: false,
        clients: Object.freeze([]),
        createdBy: p.userId,
        createdAt: at,
        updatedBy: p.userId,
        updatedAt: at,
        version: 1,
      });
      if ((await ctx.call('token store', () => store.putServiceAccount(record))) !== true) {
        throw new ConflictError(`the org '${org}' already has a service account named '${checked.name}'`);
      }
      emitAccount(ctx, p, 'service_account.created', null, record);
      return toAccountInfo(record);
    },

    async list(): Promise<ServiceAccountInfo[]> {
      const { org, store } = await admit(ctx, p, orgName);
      const all = await ctx.call('token store', () => store.listServiceAccounts(org));
      return (Array.isArray(all) ? all : []).filter((a) => a.org === org).map(toAccountInfo);
    },

    async get(name: string): Promise<ServiceAccountInfo> {
      const n = checkAccountName(name);
      const { org } = await admit(ctx, p, orgName);
      return toAccountInfo(await existing(ctx, { org, name: n }));
    },

    async update(name: string, input: unknown): Promise<ServiceAccountInfo> {
      const n = checkAccountName(name);
      const change = checkUpdate(input);
      const { org, store, callerRole } = await admit(ctx, p, orgName);
      if (change.role !== undefined) checkRank(change.role, callerRole, org);
      const ref = { org, name: n };
      const { before, after } = await changeAccount(ctx, store, ref, (a) => {
        // An admin who could not have made this account may not change it either.
        checkRank(a.role, callerRole, org);
        return { ...a, ...change, updatedBy: p.userId, updatedAt: wholeSeconds(ctx.nowMs()) };
      });
      const type = after.disabled && !before.disabled ? 'service_account.disabled' : 'service_account.updated';
      emitAccount(ctx, p, type, before, after);
      return toAccountInfo(after);
    },
  });
}

/**
 * Build `client(p).org(org).serviceAccount(name)`: the account's tokens and machine clients.
 *
 * @example
 * ```ts
 * const bot = serviceAccountApi(ctx, admin, 'acme', 'ci-bot');
 * await bot.token.create({ name: 'deploy', scopes: ['acme/web=repo:write'] });
 * ```
 */
export function serviceAccountApi(ctx: ServiceContext, p: Principal, orgName: string, name: string): ServiceAccountApi {
  ctx.stateOf(p);
  /** The caller admitted and the account read: its tokens and clients are the org admins' to manage, up to their role. */
  async function account(): Promise<{ ref: ServiceAccountRef; account: ServiceAccountRecord; store: AccountStore }> {
    const n = checkAccountName(name);
    const { org, store, callerRole } = await admit(ctx, p, orgName);
    const ref = { org, name: n };
    const a = await existing(ctx, ref);
    checkRank(a.role, callerRole, org);
    return { ref, account: a, store };
  }
  const userId = (): string => {
    try {
      return serviceAccountId(String(orgName).toLowerCase(), String(name)) ?? '';
    } catch {
      return '';
    }
  };
  const token = ownedTokenApi(ctx, p, {
    userId: userId(),
    rootId: null,
    async begin(forCreate: boolean): ReturnType<TokenOwner['begin']> {
      const { ref, account: a } = await account();
      if (forCreate && a.disabled) throw new ForbiddenError(`the service account ${ref.org}/${ref.name} is disabled: enable it first`);
      return { chain: null, roles: rolesOfAccount(a) };
    },
  });
  return Object.freeze({ token, clients: machineClientsApi(ctx, p, account) });
}
