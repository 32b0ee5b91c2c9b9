/**
 * The token table's side tables: each org's policy and the governance version
 * (`<table>_org_policies`, `<table>_governance`) with the rows of the token
 * table's `org_access` column, the DPoP replay cache (`<table>_dpop_proofs`), and the service
 * accounts with their machine clients (`<table>_service_accounts`, `<table>_machine_clients`).
 * Their SQL and their rows, apart from the token table's own.
 * @module
 */
export { buildOrgSql, type OrgSql } from './org-sql';
export { applyChange, checkAccess, checkPolicy, orgAccessJson, policyValues, readOrgAccess, rowToPolicy } from './org-rows';
export { buildProofsSql, claimProofKey, type ProofsSql } from './proofs';
export { buildAccountsSql, pgAccounts, type AccountsSql } from './accounts';
export { AccountViews, accountParams, accountsOf, ridersParam } from './account-reads';
