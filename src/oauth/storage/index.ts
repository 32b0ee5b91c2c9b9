/**
 * Where the authorization server keeps its state: the storage contract, the
 * memory and PostgreSQL storages, and the bridge oidc-provider calls.
 * @module
 */
export type { OAuthStorage, OAuthEntry, OAuthEntryKind, OAuthSecrets } from './types';
export { MemoryOAuthStorage, type MemoryOAuthStorageOptions } from './memory';
export { PostgresOAuthStorage, type PostgresOAuthStorageOptions } from './postgres';

/** @internal for the folder above and the tests (each imports this folder through its index); the package entry decides what is public. */
export { adapterClass, matchesClientSecret, type AdapterClass } from './adapter';
export { freshSecrets, checkSecrets } from './secrets';
