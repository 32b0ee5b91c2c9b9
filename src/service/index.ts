/**
 * The service layer (6): `createAuth` and the helpers its users need.
 * @module
 */
export { createAuth } from './auth';
export type { Auth, AuthOptions, MembershipSource, TokenApi, TokenInfo, CreateTokenInput } from './contract';
export type { SessionInfo } from './contract';
export type { OrgAccess, OrgApi, OrgPolicy, OrgPolicyInput, OrgRequest, OrgTokenInfo, OrgTokensFilter } from './contract';
export { reportDenied } from './internals';
export type { LeakOutcome, LeakReport, ReportLeakedOptions } from './leaks';
export type { AuthEvent, AuthEventHook, ServiceAccountEvent, ServiceAccountSnapshot } from './events';
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
} from './contract';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export { principalScopes, scopeNarrowing } from './authenticate';
export { isAuth, internalsOf } from './internals';
/** @internal for the adapters: could a value be a promise (one rule for every layer)? */
export { isThenable } from './deadlines';
export { checkTrustedWorkloads } from './workloads';
