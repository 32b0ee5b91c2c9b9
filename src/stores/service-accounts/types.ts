/**
 * What a token store keeps for service accounts (W1-W3): one record per
 * account, with the machine clients registered for it. The record is read
 * when an account's credential is used, so that a lowered role or a disabled
 * account holds on the next request (W2).
 * @module
 */
import type { RoleName } from '../../core/vocabulary';

/**
 * A public JSON Web Key as a machine client registers it (RFC 7517): only
 * public members; a store keeps what the service checked.
 *
 * @example
 * ```ts
 * const key: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'ci-1' };
 * ```
 */
export interface PublicJwk {
  readonly kty: string;
  readonly [member: string]: unknown;
}

/**
 * One OAuth client registered for a service account (`client_credentials`
 * only). It authenticates at the token endpoint with `private_key_jwt`
 * (RFC 7523, recommended: `jwks` holds its public keys) or
 * `client_secret_basic` (`secretHash` holds the SHA-256 of the secret,
 * base64url; the secret itself is shown once and never stored).
 *
 * @example
 * ```ts
 * const client: MachineClientRecord = {
 *   clientId: 'sa.YWNtZS9jaS1ib3Q.q0Zr1u6fYVxJ3ZtUQW4ilA', method: 'private_key_jwt',
 *   jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] },
 *   secretHash: null, createdBy: 'alice', createdAt: new Date(), revokedAt: null,
 * };
 * ```
 */
export interface MachineClientRecord {
  /** The OAuth `client_id`: names its account (see the service's machine client ids), unique. */
  readonly clientId: string;
  readonly method: 'private_key_jwt' | 'client_secret_basic';
  /** Its public keys, for `private_key_jwt`; `null` otherwise. */
  readonly jwks: { readonly keys: readonly PublicJwk[] } | null;
  /** SHA-256 of its secret (base64url), for `client_secret_basic`; `null` otherwise. */
  readonly secretHash: string | null;
  /** The admin who registered it. */
  readonly createdBy: string;
  readonly createdAt: Date;
  /** When an admin revoked it, or `null`. A revoked client stays listed. */
  readonly revokedAt: Date | null;
}

/**
 * A service account as a store keeps it (W1): owned by one org, with one
 * stored role on that org only. `version` starts at 1 and grows by one with
 * each change, so that {@link ServiceAccountStore.putServiceAccount} can
 * refuse a change made from a stale read.
 *
 * @example
 * ```ts
 * const now = new Date();
 * const account: ServiceAccountRecord = {
 *   org: 'acme', name: 'ci-bot', role: 'editor', description: 'deploys web', disabled: false, clients: [],
 *   createdBy: 'alice', createdAt: now, updatedBy: 'alice', updatedAt: now, version: 1,
 * };
 * ```
 */
export interface ServiceAccountRecord {
  /** The owning org, lowercase (S7). */
  readonly org: string;
  /** Its name in the org (`SERVICE_ACCOUNT_NAME`). Its principal id is `sa:<org>/<name>`. */
  readonly name: string;
  /** Its role on `org`, and nowhere else. */
  readonly role: RoleName;
  /** Free text (at most 1 024 characters), or `null`. */
  readonly description: string | null;
  /** A disabled account's every credential is refused (PATs, clients, exchanged tokens). */
  readonly disabled: boolean;
  /** Its machine clients, in registration order (at most 20), revoked ones included. */
  readonly clients: readonly MachineClientRecord[];
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedBy: string;
  readonly updatedAt: Date;
  /** 1 when created; one more with each change. */
  readonly version: number;
}

/**
 * The part of a `TokenStore` that keeps service accounts. A store offers all
 * three methods or none (then `org(name).serviceAccounts` answers
 * `UnavailableError`, and a credential of an account is refused).
 *
 * @example
 * not-checked: an outline; the memory, file and PostgreSQL stores implement it
 * ```ts
 * class MyStore implements TokenStore {
 *   readServiceAccount(org, name) { return this.accounts.get(`${org}/${name}`) ?? null; }
 *   async listServiceAccounts(org) { return [...this.accounts.values()].filter((a) => a.org === org); }
 *   async putServiceAccount(record) { return compareAndSet(record); }
 * }
 * ```
 */
export interface ServiceAccountStore {
  /**
   * Optional: the account `name` of `org` as of now, or `null` when there is
   * none. Read when an account's credential is used: an in-process store may
   * answer without a promise. Throws (or rejects) on failure: the service
   * fails closed.
   */
  readServiceAccount?(org: string, name: string): ServiceAccountRecord | null | Promise<ServiceAccountRecord | null>;
  /** Optional: every account of `org`, by name. */
  listServiceAccounts?(org: string): Promise<ServiceAccountRecord[]>;
  /**
   * Optional: store `record` atomically when it follows what is stored: when
   * `record.version` is 1 and no account of that org and name exists, or when
   * the stored one's version is `record.version - 1`. Resolves `true` when
   * stored, `false` (nothing written) otherwise. A `clientId` already used by
   * another account is an error (throw).
   */
  putServiceAccount?(record: ServiceAccountRecord): Promise<boolean>;
}
