/**
 * The bridge from oidc-provider's adapter interface (one adapter object per
 * model, `upsert(id, payload, expiresIn)` and so on) to an {@link OAuthStorage}.
 * The server's rules on stored clients live here, where oidc-provider stores
 * and looks them up: a client id that is a metadata document URL is resolved
 * by fetching the document (never stored); a registered client's secret is
 * stored as its SHA-256 only (the storage never holds it: see
 * {@link matchesClientSecret}); a registered client is kept for a while when
 * unused and as long as its newest grant otherwise (anonymous registrations do
 * not pile up); and its `scope` is not kept as a limit, so that a client can
 * later ask for more (a step-up after a 403) and the person decides on the
 * consent page.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { OAuthEntry, OAuthEntryKind, OAuthStorage } from './types';

/**
 * The stored form of a client secret. One SHA-256 is enough: the server makes every secret
 * (oidc-provider's 256 random bits), so there is nothing to guess that a slow hash would protect.
 */
function secretHash(secret: string): string {
  return `sha256:${createHash('sha256').update(secret).digest('base64url')}`;
}

/** @internal Does `presented` match the `stored` client secret (its hash), in constant time? */
export function matchesClientSecret(stored: unknown, presented: unknown): boolean {
  if (typeof stored !== 'string' || typeof presented !== 'string') return false;
  const expected = Buffer.from(stored);
  const actual = Buffer.from(secretHash(presented));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** @internal What the adapter needs besides the storage. */
export interface AdapterHooks {
  /** Is `id` a metadata document client id? */
  isDocument(id: string): boolean;
  /** The client metadata of a document client id; rejects with an oidc-provider error when refused. */
  documentClient(id: string): Promise<OAuthEntry>;
  /** Every token of `grantId` was revoked (refresh token revoked, code replayed): its session records go too. */
  grantRevoked(grantId: string): Promise<void>;
  /** Seconds a registered client is kept while unused, and after its newest grant was made (the grant lifetime). */
  readonly clientTtlSec: { readonly unused: number; readonly granted: number };
  now(): Date;
  /** A new client could not be stored (a full client budget, the storage down): the error to answer the registration with. */
  clientRefused(err: unknown): Error;
  /** A service account's machine client (never stored here), or `undefined` when `id` is not one or is refused. */
  machineClient?(id: string): Promise<OAuthEntry | undefined>;
  /** The error a registration asking for what only machine clients have (client_credentials, jwt-bearer) is answered with. */
  machineRegistrationRefused?(): Error;
}

/** @internal The adapter class oidc-provider instantiates once per model name. */
export type AdapterClass = new (name: string) => {
  upsert(id: string, payload: OAuthEntry, expiresIn?: number): Promise<void>;
  find(id: string): Promise<OAuthEntry | undefined>;
  findByUserCode(userCode: string): Promise<OAuthEntry | undefined>;
  findByUid(uid: string): Promise<OAuthEntry | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
};

/** Longest id looked up: oidc-provider's own ids are 43 characters, document client ids at most 2 048. */
const MAX_ID = 2_048;

/** @internal An oidc-provider adapter class over `storage`. */
export function adapterClass(storage: OAuthStorage, hooks: AdapterHooks): AdapterClass {
  return class StorageAdapter {
    readonly #kind: OAuthEntryKind;

    constructor(name: string) {
      this.#kind = name as OAuthEntryKind;
    }

    async upsert(id: string, payload: OAuthEntry, expiresIn?: number): Promise<void> {
      const at = (sec: number): Date => new Date(hooks.now().getTime() + sec * 1000);
      if (this.#kind === 'Client') {
        // Machine clients live in their service account's record, and the workloads' one is static: a
        // registration never makes a client with their grants.
        const grants = Array.isArray(payload.grant_types) ? (payload.grant_types as unknown[]) : [];
        const machineGrant = grants.includes('client_credentials') || grants.includes('urn:ietf:params:oauth:grant-type:jwt-bearer');
        if ((id.startsWith('sa~') || machineGrant) && hooks.machineRegistrationRefused !== undefined)
          throw hooks.machineRegistrationRefused();
        const entry =
          typeof payload.client_secret === 'string' ? { ...payload, client_secret: secretHash(payload.client_secret) } : payload;
        try {
          await storage.set('Client', id, entry, at(hooks.clientTtlSec.unused));
        } catch (err) {
          throw hooks.clientRefused(err);
        }
        return;
      }
      await storage.set(this.#kind, id, payload, typeof expiresIn === 'number' && expiresIn > 0 ? at(expiresIn) : null);
      // A grant keeps its client: no grant of it can outlive a grant lifetime from now.
      if (this.#kind === 'Grant' && typeof payload.clientId === 'string' && !hooks.isDocument(payload.clientId)) {
        const client = await storage.get('Client', payload.clientId);
        if (client !== undefined) await storage.set('Client', payload.clientId, client, at(hooks.clientTtlSec.granted));
      }
    }

    async find(id: string): Promise<OAuthEntry | undefined> {
      if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID) return undefined;
      if (this.#kind === 'Client') {
        if (hooks.isDocument(id)) return hooks.documentClient(id);
        if (id.startsWith('sa~')) return hooks.machineClient?.(id);
        const client = await storage.get('Client', id);
        if (client !== undefined) delete client.scope;
        return client;
      }
      return storage.get(this.#kind, id);
    }

    findByUserCode(userCode: string): Promise<OAuthEntry | undefined> {
      if (typeof userCode !== 'string' || userCode.length > 64) return Promise.resolve(undefined);
      return storage.findByUserCode(userCode);
    }

    findByUid(uid: string): Promise<OAuthEntry | undefined> {
      if (typeof uid !== 'string' || uid.length > 128) return Promise.resolve(undefined);
      return storage.findByUid(uid);
    }

    consume(id: string): Promise<void> {
      return storage.consume(this.#kind, id, hooks.now());
    }

    destroy(id: string): Promise<void> {
      return storage.destroy(this.#kind, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await storage.revokeByGrantId(grantId);
      // oidc-provider calls this once per token model of the grant, AccessToken always among them:
      // the session records are revoked once, on that call, and awaited before the answer is sent.
      if (this.#kind === 'AccessToken') await hooks.grantRevoked(grantId);
    }
  };
}
