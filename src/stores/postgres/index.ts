/**
 * The PostgreSQL token store. Its own folder, loaded only by `svc-auth/postgres`
 * and by the CLI when `SVC_DATABASE_URL` is set, so that the root package never
 * loads `pg` (an optional peer dependency).
 * @module
 */
export { PostgresTokenStore, type PostgresTokenStoreOptions } from './store';
