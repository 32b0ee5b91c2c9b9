/**
 * `svc-auth/postgres`: the PostgreSQL token and membership stores, and the PostgreSQL storage of
 * the authorization server of `svc-auth/oauth`. A subpath of its own so that
 * the root package never loads `pg` (an optional peer dependency).
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { PostgresTokenStore } from 'svc-auth/postgres';
 * const store = new PostgresTokenStore({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * await store.migrate();
 * ```
 * @module
 */
export {
  PostgresTokenStore,
  PostgresMembershipStore,
  type PostgresTokenStoreOptions,
  type PostgresMembershipStoreOptions,
} from '../stores/postgres';
export { PostgresOAuthStorage, type PostgresOAuthStorageOptions } from '../oauth';
