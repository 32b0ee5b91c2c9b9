export { PERMISSIONS, isPermission, permissionIndex, permissionBit, permissionsOf, permissionTier, type Permission } from './permissions';
export { isPlainObject, checkOptions, checkUserId } from './input';
export { ROLES, ROLE_TABLE, isRoleName, roleMasks, type RoleName, type RoleExpansion, type UserRoles } from './roles';
export {
  SERVICE_ACCOUNT_PREFIX,
  SERVICE_ACCOUNT_NAME,
  serviceAccountId,
  parseServiceAccountId,
  machineClientId,
  parseMachineClientId,
  type ServiceAccountRef,
} from './service-accounts';
