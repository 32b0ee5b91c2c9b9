/**
 * The request path's caches: compiled grants and scope layers, reused only for
 * inputs equal to those they were built from.
 * @module
 */
export { GrantCache, LayerCache, rolesSnapshot, sameRoles } from './grant-cache';
export { isDeepFrozen, pinScopes, sameScopes } from './scopes-pin';
export { grantSource, type Grants } from './grants';
