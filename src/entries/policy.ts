/**
 * `svc-auth/policy`: the reference policy engine on its own, for code that
 * decides without tokens or HTTP (tests of another service's rules, an
 * offline checker, a UI that explains a denial). The vocabulary (permissions,
 * roles and their fixed expansion), scopes (syntax, meaning, limits, thing
 * names and `allowedMatches` patterns) and grants (compile once, decide
 * synchronously). Pure and synchronous; it loads no `node:` module.
 *
 * The names of the service's contract (`createGrant`, `authorize`,
 * `normalizeScopes`, `Permission` ...) are also exported by `svc-auth`; the
 * types of an org's governance (`OrgApi`, `OrgPolicy` ...) are here only.
 *
 * @example
 * ```ts
 * import { createGrant, authorize, normalizeScopes, parseScopeFlags } from 'svc-auth/policy';
 * const { scopes } = normalizeScopes(parseScopeFlags(['acme/web=repo:read']));
 * const grant = createGrant({ roles: { orgs: { acme: 'editor' } }, layers: [scopes] });
 * authorize(grant, 'acme/web', 'repo:write'); // { allowed: false, reason: 'scope' }
 * ```
 * @module
 */

// 1 vocabulary
export {
  PERMISSIONS,
  ROLES,
  ROLE_TABLE,
  isPermission,
  isRoleName,
  type Permission,
  type RoleName,
  type RoleExpansion,
  SERVICE_ACCOUNT_PREFIX,
  SERVICE_ACCOUNT_NAME,
  serviceAccountId,
  parseServiceAccountId,
  machineClientId,
  parseMachineClientId,
  type ServiceAccountRef,
} from '../core/vocabulary';

// 2 scopes
export {
  parseScopeFlags,
  parseScopesJson,
  normalizeScopes,
  formatScopeFlags,
  isFlagExpressible,
  checkPattern,
  parseResource,
  isValidThingName,
  LIMITS,
  type Scope,
  type ScopeEntry,
  type ResourceRef,
} from '../core/scopes';

// 3 policy
export {
  createGrant,
  compileLayer,
  authorize,
  canEverHold,
  Grant,
  CompiledLayer,
  type GrantInput,
  type OrgGate,
  type Decision,
  type DenyReason,
  type UserRoles,
} from '../core/policy';

// An org's governance as its owners see it (`auth.client(p).org(name)`): types only, nothing is loaded.
export type { OrgAccess, OrgApi, OrgPolicy, OrgPolicyInput, OrgRequest, OrgTokenInfo, OrgTokensFilter } from '../service';

// An org's machines (`org(name).serviceAccounts`, `.serviceAccount(name)`) and workload sign-in: types only.
export type {
  CreateMachineClientInput,
  CreateServiceAccountInput,
  CreatedMachineClient,
  ExchangedToken,
  ExchangeWorkloadOptions,
  MachineClientInfo,
  ServiceAccountApi,
  ServiceAccountEvent,
  ServiceAccountInfo,
  ServiceAccountSnapshot,
  ServiceAccountsApi,
  TrustedWorkload,
  UpdateServiceAccountInput,
  WorkloadRule,
} from '../service';
