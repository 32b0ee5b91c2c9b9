/**
 * What stores keep for organizations (G1-G4): the records of the governance
 * contract, and the check of a record's `orgAccess` shared by every store.
 * @module
 */
export type { OrgAccessChange, OrgAccessEntry, OrgAccessStatus, OrgPolicyRecord, OrgPolicySet } from './governance';
export { accessEntries, accessJson, ORG, readOrgAccess, type StoredAccess } from './access';
