/**
 * Inputs of the policy layer. `UserRoles` is vocabulary (layer 1), so that stores can name it
 * without importing policy; it is re-exported here for the code that always found it here.
 * @module
 */
export type { UserRoles } from '../vocabulary';
