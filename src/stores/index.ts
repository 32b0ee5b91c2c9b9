/**
 * Layer 5, stores: where token records and memberships live. The interfaces
 * (`TokenStore`, `MembershipStore`) are small so that a database adapter fits in
 * one file; `svc-auth/testing` checks a `TokenStore` implementation.
 * @module
 */
export type { InsertResult, RecordKind, TokenRecord, TokenStore, TokenUse, UsedFrom } from './types';
export { MAX_USED_FROM } from './types';
export type { OrgAccessChange, OrgAccessEntry, OrgAccessStatus, OrgPolicyRecord, OrgPolicySet } from './orgs';
export type { MachineClientRecord, PublicJwk, ServiceAccountRecord } from './service-accounts';
export { MAX_MACHINE_CLIENTS } from './service-accounts';
export { MemoryTokenStore } from './memory';
export { MemoryMembershipStore, type Membership, type MembershipStore } from './membership';
export { FileTokenStore, FileMembershipStore, type FileStoreOptions } from './file';
export { JsonFile } from './file';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export { codeOf } from './file';
export { checkRole } from './membership';
export {
  BOUNDED_ACCOUNT,
  CLAIM_NOW,
  SHARED_CHAIN,
  SHARED_READ,
  type BoundedAccountSource,
  type ClaimNowSource,
  type SharedChainSource,
  type SharedReadSource,
} from './views';
export { MAX_ALLOWED_IPS, MAX_USER_AGENT, MAX_MARK_LIMIT } from './usage';
