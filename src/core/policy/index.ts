/**
 * The policy layer (3): a user's roles and a token's scope layers compiled into
 * a {@link Grant}, and `authorize`, which answers from it. Pure and synchronous.
 * @module
 */
export { createGrant, Grant, type GrantInput, type OrgGate } from './grant';
export { compileLayer, CompiledLayer } from './compile';
export { authorize } from './authorize';
export { canEverHold } from './hold';
export type { Decision, DenyReason } from './decision';
export type { IssuedBy, Principal } from './subject';
export type { UserRoles } from './types';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export { grantTable } from './grant';
export { GRANT_SLOT, isPrincipal } from './subject';
