export {
  PERMISSIONS,
  REPO_PERMISSIONS,
  ORG_PERMISSIONS,
  REPO_MASK,
  ORG_MASK,
  isPermission,
  permissionIndex,
  permissionBit,
  permissionMask,
  permissionsOf,
  permissionTier,
  type Permission,
} from './permissions';
export { ROLES, ROLE_TABLE, isRoleName, roleMasks, type RoleName, type RoleExpansion } from './roles';
