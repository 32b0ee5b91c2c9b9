/**
 * `svc-auth/stores`: the stores beyond the default `MemoryTokenStore`, and
 * what a store implements. The file stores (one JSON file per store, behind
 * the `svc` command) and the memory membership store; the record types a
 * `TokenStore` or `MembershipStore` adapter reads and writes, checked by the
 * conformance suites of `svc-auth/testing`. `TokenStore` and
 * `MemoryTokenStore` are also exported by `svc-auth`; the PostgreSQL stores
 * are in `svc-auth/postgres`.
 *
 * @example
 * ```ts
 * import { createAuth, generateKeyRing } from 'svc-auth';
 * import { FileTokenStore, FileMembershipStore } from 'svc-auth/stores';
 * const home = process.env.SVC_HOME ?? '.svc';
 * const auth = createAuth({
 *   issuer: 'http://127.0.0.1', keys: await generateKeyRing(),
 *   tokens: new FileTokenStore(home),
 *   members: new FileMembershipStore(home),
 * });
 * ```
 * @module
 */
export {
  MemoryTokenStore,
  MemoryMembershipStore,
  FileTokenStore,
  FileMembershipStore,
  MAX_USED_FROM,
  type TokenStore,
  type TokenRecord,
  type InsertResult,
  type RecordKind,
  type TokenUse,
  type UsedFrom,
  type MembershipStore,
  type Membership,
  type FileStoreOptions,
  type OrgAccessChange,
  type OrgAccessEntry,
  type OrgAccessStatus,
  type OrgPolicyRecord,
  type OrgPolicySet,
  type ServiceAccountRecord,
  type MachineClientRecord,
  type PublicJwk,
  MAX_MACHINE_CLIENTS,
} from '../stores';
