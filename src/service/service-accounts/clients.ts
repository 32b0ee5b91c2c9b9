/**
 * Machine clients of a service account (OAuth `client_credentials`): registered by an org admin
 * in the account's record, found by the authorization server from the client id alone. A secret
 * is shown once and kept as its SHA-256 only.
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { NotFoundError, ValidationError } from '../../errors';
import type { Principal } from '../../core/policy';
import { machineClientId, parseMachineClientId, ROLE_TABLE, type Permission, type ServiceAccountRef } from '../../core/vocabulary';
import { MAX_MACHINE_CLIENTS, type MachineClientRecord, type ServiceAccountRecord, type TokenStore } from '../../stores';
import type { ServiceContext } from '../internals';
import type { CreatedMachineClient, MachineClientInfo, ServiceAccountApi } from '../contract';
import { readAccount } from '../authenticate';
import { changeAccount, type AccountStore } from './access';
import { checkClientInput } from './input';
import { emitAccount, toClientInfo } from './view';

const hashOf = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('base64url');

/**
 * @internal `serviceAccount(n).clients`; `account` admits the caller and reads the account.
 *
 * @example
 * ```ts
 * const clients = machineClientsApi(ctx, admin, account);
 * const { clientId, clientSecret } = await clients.create({ secret: true });
 * ```
 */
export function machineClientsApi(
  ctx: ServiceContext,
  p: Principal,
  account: () => Promise<{ ref: ServiceAccountRef; account: ServiceAccountRecord; store: AccountStore }>,
): ServiceAccountApi['clients'] {
  return Object.freeze({
    async create(input: unknown): Promise<CreatedMachineClient> {
      const { keys } = checkClientInput(input);
      const { ref, store } = await account();
      const clientId = machineClientId(ref, randomBytes(16).toString('base64url')) as string;
      const secret = keys === null ? randomBytes(32).toString('base64url') : null;
      let made: MachineClientRecord | undefined;
      const { before, after } = await changeAccount(ctx, store, ref, (a) => {
        if (a.clients.length >= MAX_MACHINE_CLIENTS) {
          throw new ValidationError([
            { path: 'clients', message: `an account keeps at most ${MAX_MACHINE_CLIENTS} clients, revoked ones included` },
          ]);
        }
        const at = new Date(Math.floor(ctx.nowMs() / 1000) * 1000);
        made = Object.freeze({
          clientId,
          method: keys === null ? 'client_secret_basic' : 'private_key_jwt',
          jwks: keys === null ? null : Object.freeze({ keys: Object.freeze(keys) }),
          secretHash: secret === null ? null : hashOf(secret),
          createdBy: p.userId,
          createdAt: at,
          revokedAt: null,
        });
        return { ...a, clients: Object.freeze([...a.clients, made]), updatedBy: p.userId, updatedAt: at };
      });
      emitAccount(ctx, p, 'service_account.updated', before, after, clientId);
      return { ...toClientInfo(made as MachineClientRecord), clientSecret: secret };
    },

    async list(): Promise<MachineClientInfo[]> {
      const { account: a } = await account();
      return a.clients.map(toClientInfo);
    },

    async revoke(clientId: string): Promise<MachineClientInfo> {
      if (typeof clientId !== 'string' || clientId.length > 256)
        throw new ValidationError([{ path: 'clientId', message: 'must be a client id' }]);
      const { ref, account: current, store } = await account();
      const held = current.clients.find((c) => c.clientId === clientId);
      if (held === undefined) throw new NotFoundError(`the service account ${ref.org}/${ref.name} has no client ${clientId}`);
      if (held.revokedAt !== null) return toClientInfo(held);
      const { before, after } = await changeAccount(ctx, store, ref, (a) => {
        const at = new Date(Math.floor(ctx.nowMs() / 1000) * 1000);
        const clients = a.clients.map((c) =>
          c.clientId === clientId && c.revokedAt === null ? Object.freeze({ ...c, revokedAt: at }) : c,
        );
        return { ...a, clients: Object.freeze(clients), updatedBy: p.userId, updatedAt: at };
      });
      emitAccount(ctx, p, 'service_account.updated', before, after, clientId);
      return toClientInfo(after.clients.find((c) => c.clientId === clientId) as MachineClientRecord);
    },
  });
}

/**
 * @internal What the authorization server asks of machine clients (through the `Auth`'s internals).
 *
 * @example
 * ```ts
 * const found = await internalsOf(auth)?.machines.findClient(clientId);
 * if (found !== null && found.client.method === 'client_secret_basic') machines.checkSecret(found.client, presented);
 * ```
 */
export interface MachineClients {
  /** The live client and its account: `null` for an unknown or revoked client, or a gone or disabled account. */
  findClient(clientId: string): Promise<{ account: ServiceAccountRecord; client: MachineClientRecord; permissions: Permission[] } | null>;
  /** Is `presented` the client's secret? Constant time on the hashes; `false` for a client without one. */
  checkSecret(client: MachineClientRecord, presented: string): boolean;
}

/**
 * @internal The machine clients of one `Auth`'s store.
 *
 * @example
 * ```ts
 * const machines = machineClients(store, call);
 * ```
 */
export function machineClients(store: TokenStore, call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>): MachineClients {
  return Object.freeze({
    async findClient(clientId: string) {
      const ref = parseMachineClientId(clientId);
      if (ref === null || typeof store.readServiceAccount !== 'function') return null;
      const got = readAccount(store, call, ref);
      const account = got instanceof Promise ? await got : got;
      if (account === null || account.disabled) return null;
      const client = account.clients.find((c) => c.clientId === clientId);
      if (client === undefined || client.revokedAt !== null) return null;
      // What the account's role can ever grant on its org: a machine token asks for at most this (W2).
      const role = ROLE_TABLE[account.role];
      return { account, client, permissions: [...role.repo, ...role.org] };
    },
    checkSecret(client: MachineClientRecord, presented: string): boolean {
      if (client.secretHash === null || typeof presented !== 'string' || presented.length === 0 || presented.length > 512) return false;
      const a = Buffer.from(hashOf(presented));
      const b = Buffer.from(client.secretHash);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  });
}
