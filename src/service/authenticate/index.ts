/**
 * The request path of `createAuth` (T5): a credential to a principal, through
 * the token's record chain and the owner's roles; the caches that keep it fast
 * sit beside it (caches/).
 * @module
 */
export { createAuthenticator } from './authenticate';
export { nonceForAnswer } from './dpop';

/** @internal for the folders above (each imports this folder through its index); the package root decides what is public. */
export { principalScopes, scopeNarrowing } from './principal';
export { chainExpiryMs, checkGrantChain } from './chain';
export { addressOf, addressText } from './origin';
export { ownerRoles, readAccount, rolesOfAccount } from './accounts';
