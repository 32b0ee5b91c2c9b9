/**
 * The PostgreSQL token store. Its own folder, loaded only by `svc-auth/postgres`
 * and by the CLI when `SVC_DATABASE_URL` is set, so that the root package never
 * loads `pg` (an optional peer dependency).
 * @module
 */
export { PostgresTokenStore, type PostgresTokenStoreOptions } from './store';

/** @internal for the folders above and the tests (each imports this folder through its index); the package root decides what is public. */
export { ChainBatcher } from './batch';
export type { ChainSource } from './batch';
export { groupByRoot } from './rows';
export { KnownRecords, freshOf } from './known';
export type { Fresh } from './known';
export { borrow, clientErrors, type ClientErrors } from './client';
export { parseTableName, type TableName } from './sql';
