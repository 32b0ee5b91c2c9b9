/**
 * The service's contract, one file per job: `createAuth`'s options and the `Auth` it returns
 * (auth.ts), where a credential is used from (requests.ts), token management (tokens.ts), a user's sessions (sessions.ts), an org's governance (orgs.ts).
 * @module
 */
export type { Auth, AuthOptions, MembershipSource } from './auth';
export type { RequestOrigin, AuthenticateRequestOptions } from './requests';
export type { CreateTokenInput, ExpiringToken, LastUse, ListTokensOptions, SweepOptions, TokenApi, TokenInfo } from './tokens';
export type { OrgAccess, OrgApi, OrgPolicy, OrgPolicyInput, OrgRequest, OrgTokenInfo, OrgTokensFilter } from './orgs';
export type { PurgeOptions, SessionApi, SessionInfo } from './sessions';
export type {
  CreateMachineClientInput,
  CreateServiceAccountInput,
  CreatedMachineClient,
  ExchangedToken,
  ExchangeWorkloadOptions,
  MachineClientInfo,
  ServiceAccountApi,
  ServiceAccountInfo,
  ServiceAccountsApi,
  TrustedWorkload,
  UpdateServiceAccountInput,
  WorkloadRule,
} from './service-accounts';
