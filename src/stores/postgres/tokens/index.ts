/**
 * `PostgresTokenStore`: token records in a PostgreSQL table, with its SQL,
 * its coalesced chain reads and what it remembers of the rows it read.
 * @module
 */
export { PostgresTokenStore, type PostgresTokenStoreOptions } from './store';

/** @internal for the folders above (each imports this folder through its index); the package root decides what is public. */
export { ChainBatcher } from './batch';
export { parseTableName, type TableName } from './sql';
