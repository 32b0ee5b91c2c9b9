/**
 * Token management of `createAuth`: `client(principal).token.*` (M1-M5),
 * `client(principal).sessions.*`, and the issuing of sessions and component
 * tokens (T3).
 * @module
 */
export { tokenApi, ownedTokenApi, type TokenOwner } from './token-api';
export { sessionApi } from './session-api';
export { issuers } from './issue';
export { sweeper } from './sweep';
export { purger } from './purge';

/** @internal for the folders above (each imports this folder through its index); the package root decides what is public. */
export { managedRecords, toInfo } from './token-info';
export { checkNarrowing } from './narrowing';
