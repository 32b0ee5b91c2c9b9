/**
 * The PostgreSQL stores. Their own folder, loaded only by `svc-auth/postgres`
 * and by the CLI when `SVC_DATABASE_URL` is set, so that the root package never
 * loads `pg` (an optional peer dependency).
 * @module
 */
export { PostgresTokenStore, type PostgresTokenStoreOptions } from './tokens';
export { PostgresMembershipStore, type PostgresMembershipStoreOptions } from './members';

/** @internal for the folders above and the tests (each imports this folder through its index); the package root decides what is public. */
export { ChainBatcher, parseTableName, type TableName } from './tokens';
export { borrow, clientErrors, type ClientErrors } from './client';
