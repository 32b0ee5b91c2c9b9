/**
 * What an org's admins see of a service account and its machine clients: never a secret or its hash.
 * @module
 */
import { serviceAccountId } from '../../core/vocabulary';
import type { MachineClientRecord, ServiceAccountRecord } from '../../stores';
import type { MachineClientInfo, ServiceAccountInfo } from '../contract';
import { actorOf, type ServiceAccountSnapshot } from '../events';
import type { ServiceContext } from '../internals';
import type { Principal } from '../../core/policy';

/**
 * @internal An account as `serviceAccounts.get` shows it.
 *
 * @example
 * ```ts
 * toAccountInfo(record).id; // 'sa:acme/ci-bot'
 * ```
 */
export function toAccountInfo(a: ServiceAccountRecord): ServiceAccountInfo {
  return {
    id: serviceAccountId(a.org, a.name) as string,
    org: a.org,
    name: a.name,
    role: a.role,
    description: a.description,
    disabled: a.disabled,
    createdBy: a.createdBy,
    createdAt: new Date(a.createdAt.getTime()),
    updatedBy: a.updatedBy,
    updatedAt: new Date(a.updatedAt.getTime()),
  };
}

/**
 * @internal A machine client as `clients.list` shows it.
 *
 * @example
 * ```ts
 * toClientInfo(client).status; // 'active'
 * ```
 */
export function toClientInfo(c: MachineClientRecord): MachineClientInfo {
  return {
    clientId: c.clientId,
    method: c.method,
    status: c.revokedAt === null ? 'active' : 'revoked',
    createdBy: c.createdBy,
    createdAt: new Date(c.createdAt.getTime()),
    revokedAt: c.revokedAt === null ? null : new Date(c.revokedAt.getTime()),
  };
}

/**
 * @internal What an event shows of an account.
 *
 * @example
 * ```ts
 * snapshot(record); // { role: 'editor', description: null, disabled: false }
 * ```
 */
export function snapshot(a: ServiceAccountRecord): ServiceAccountSnapshot {
  return Object.freeze({ role: a.role, description: a.description, disabled: a.disabled });
}

/**
 * @internal Emit one account event (never throws: the dispatcher guards the hook).
 *
 * @example
 * ```ts
 * emitAccount(ctx, admin, 'service_account.created', null, record);
 * ```
 */
export function emitAccount(
  ctx: ServiceContext,
  p: Principal,
  type: 'service_account.created' | 'service_account.updated' | 'service_account.disabled',
  before: ServiceAccountRecord | null,
  after: ServiceAccountRecord,
  clientId: string | null = null,
): void {
  ctx.events?.emit(
    Object.freeze({
      type,
      at: new Date(after.updatedAt.getTime()),
      actor: actorOf(p),
      org: after.org,
      name: after.name,
      accountId: serviceAccountId(after.org, after.name) as string,
      before: before === null ? null : snapshot(before),
      after: snapshot(after),
      clientId,
    }),
  );
}
