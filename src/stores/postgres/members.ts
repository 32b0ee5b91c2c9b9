/**
 * A {@link MembershipStore} on PostgreSQL: who holds which role where, in one
 * table shared by every server, so that `createAuth({ members })` and
 * `svc member` read and write the same roles.
 *
 * `pg` is an optional peer dependency: this module imports its types only and
 * calls nothing but `pool.connect()`.
 * @module
 */
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { UnavailableError, ValidationError, type IssueInput } from '../../errors';
import { checkOptions, checkUserId, isPlainObject, ROLES, type RoleName, type UserRoles } from '../../core/vocabulary';
import { checkResource, checkRole, compareMemberships, type Membership, type MembershipStore } from '../membership';
import { borrow, clientErrors, type ClientErrors } from './client';
import { parseTableName, type TableName } from './tokens';

/**
 * Options of {@link PostgresMembershipStore}. Checked when the store is built.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import type { PostgresMembershipStoreOptions } from 'svc-auth/postgres';
 * const options: PostgresMembershipStoreOptions = { pool: new pg.Pool(), table: 'auth.members' };
 * ```
 */
export interface PostgresMembershipStoreOptions {
  /** A `pg.Pool`. The store only borrows connections from it; it never ends it. */
  pool: Pool;
  /** Table name, `name` or `schema.name`, each part `^[a-z_][a-z0-9_]{0,62}$`. Default `svc_auth_members`. The schema must exist. */
  table?: string;
  /** Longest time one call may take, in milliseconds; then it rejects with `UnavailableError`. Default 5 000. */
  statementTimeoutMs?: number;
}

const DEFAULT_TABLE = 'svc_auth_members';
const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 2_147_483_647;
const MIGRATE_TIMEOUT_MS = 60_000;
const OPTION_KEYS = new Set(['pool', 'table', 'statementTimeoutMs']);
const LABEL = 'membership store';

function readOptions(options: PostgresMembershipStoreOptions): { pool: Pool; name: TableName; timeoutMs: number } {
  if (!isPlainObject(options))
    throw new ValidationError([{ path: '', message: 'expected an options object { pool, table?, statementTimeoutMs? }' }]);
  const issues: IssueInput[] = [];
  if (!checkOptions(options, OPTION_KEYS, '', issues)) throw new ValidationError(issues);
  const pool: unknown = options.pool;
  if (typeof pool !== 'object' || pool === null || typeof (pool as { connect?: unknown }).connect !== 'function') {
    throw new ValidationError([{ path: 'pool', message: 'expected a pg.Pool' }]);
  }
  const timeoutMs = options.statementTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new ValidationError([{ path: 'statementTimeoutMs', message: `expected an integer from 1 to ${MAX_TIMEOUT_MS}` }]);
  }
  return { pool: pool as Pool, name: parseTableName(options.table ?? DEFAULT_TABLE), timeoutMs };
}

/** A row as a membership. A row that is not one (edited by hand) fails closed: no role is ever read from it. */
function toMembership(row: QueryResultRow): Membership {
  try {
    const user = checkUserId(row.user_id);
    const resource = checkResource(row.resource);
    if (resource !== row.resource) throw new ValidationError('not lowercase');
    return Object.freeze({ user, resource, role: checkRole(row.role) });
  } catch (err) {
    throw new UnavailableError('membership store unavailable: a stored membership is malformed', { cause: err });
  }
}

/**
 * Memberships in a PostgreSQL table (one row per user and resource), safe for
 * several servers at once. Every call is one statement; `set` replaces the
 * role held there (an upsert), so two servers setting at once leave one of
 * the two roles, never two rows. Invalid input rejects with `ValidationError`
 * (`issues[0].path` is `userId`, `resource` or `role`) before the database is
 * asked; every database failure rejects with `UnavailableError` (so
 * `authenticate` refuses: it never allows on error), and so does a row that
 * is not a valid membership.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createAuth, generateKeyRing } from 'svc-auth';
 * import { PostgresMembershipStore, PostgresTokenStore } from 'svc-auth/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on('error', () => {});
 * const members = new PostgresMembershipStore({ pool });
 * const tokens = new PostgresTokenStore({ pool });
 * await members.migrate();
 * await tokens.migrate();
 * await members.set('alice', 'acme', 'editor');
 * const auth = createAuth({ issuer: 'svc', keys: await generateKeyRing(), members, tokens });
 * ```
 */
export class PostgresMembershipStore implements MembershipStore {
  private readonly pool: Pool;
  private readonly name: TableName;
  private readonly timeoutMs: number;
  private readonly errors: ClientErrors;

  constructor(options: PostgresMembershipStoreOptions) {
    const checked = readOptions(options);
    this.pool = checked.pool;
    this.name = checked.name;
    this.timeoutMs = checked.timeoutMs;
    this.errors = clientErrors(this.pool);
  }

  /** The quoted table name this store uses, e.g. `"auth"."members"`. */
  get table(): string {
    return this.name.quoted;
  }

  /**
   * Create the table, or leave it as it is: safe to run from several servers at
   * once (an advisory lock serialises it, as the token store's) and to run again.
   *
   * @example
   * ```ts
   * await new PostgresMembershipStore({ pool }).migrate();
   * ```
   */
  async migrate(): Promise<void> {
    const t = this.name.quoted;
    const timeout = Math.max(this.timeoutMs, MIGRATE_TIMEOUT_MS);
    await this.run(timeout, async (client) => {
      await client.query('BEGIN');
      await client.query({
        text: `SELECT set_config('statement_timeout', $1, true), pg_advisory_xact_lock(hashtextextended($2, 0))`,
        values: [String(timeout), JSON.stringify(['svc-auth', 'migrate', this.name.plain])],
      });
      // The role list is the vocabulary's; a role added later is one more ALTER here.
      await client.query(`CREATE TABLE IF NOT EXISTS ${t} (
          user_id text NOT NULL,
          resource text NOT NULL,
          role text NOT NULL CHECK (role IN (${ROLES.map((r) => `'${r}'`).join(', ')})),
          PRIMARY KEY (user_id, resource)
        )`);
      await client.query('COMMIT');
    });
  }

  /**
   * The user's roles (see {@link MembershipStore.rolesOf}): one primary-key range read.
   *
   * @example
   * ```ts
   * await members.rolesOf('alice'); // { orgs: { acme: 'editor' }, repos: {} }
   * ```
   */
  async rolesOf(userId: string): Promise<UserRoles> {
    const user = checkUserId(userId);
    const rows = await this.query(`SELECT user_id, resource, role FROM ${this.name.quoted} WHERE user_id = $1`, [user]);
    // Null-prototype maps: a lookup of an org the user is not in finds nothing, even `constructor`.
    const orgs: Record<string, RoleName> = Object.create(null) as Record<string, RoleName>;
    const repos: Record<string, RoleName> = Object.create(null) as Record<string, RoleName>;
    for (const row of rows) {
      const m = toMembership(row);
      (m.resource.includes('/') ? repos : orgs)[m.resource] = m.role;
    }
    return { orgs, repos };
  }

  /**
   * Give `userId` `role` on `resource`, replacing any role held there.
   *
   * @example
   * ```ts
   * await members.set('alice', 'Acme/Web', 'viewer'); // stored as acme/web
   * ```
   */
  async set(userId: string, resource: string, role: RoleName): Promise<void> {
    const values = [checkUserId(userId), checkResource(resource), checkRole(role)];
    await this.query(
      `INSERT INTO ${this.name.quoted} (user_id, resource, role) VALUES ($1, $2, $3)
        ON CONFLICT (user_id, resource) DO UPDATE SET role = EXCLUDED.role`,
      values,
    );
  }

  /**
   * Remove the user's role on `resource`; `true` when there was one.
   *
   * @example
   * ```ts
   * await members.remove('alice', 'acme'); // true, then false
   * ```
   */
  async remove(userId: string, resource: string): Promise<boolean> {
    const values = [checkUserId(userId), checkResource(resource)];
    const rows = await this.query(`DELETE FROM ${this.name.quoted} WHERE user_id = $1 AND resource = $2 RETURNING 1`, values);
    return rows.length > 0;
  }

  /**
   * Every membership, sorted by user, then resource (code-unit order, as the
   * memory and file stores sort).
   *
   * @example
   * ```ts
   * await members.list(); // [{ user: 'alice', resource: 'acme', role: 'editor' }]
   * ```
   */
  async list(): Promise<Membership[]> {
    const rows = await this.query(`SELECT user_id, resource, role FROM ${this.name.quoted}`, []);
    // Sorted here, not by the database: its collation is not JavaScript's order.
    return rows.map(toMembership).sort(compareMemberships);
  }

  private async query(text: string, values: unknown[]): Promise<QueryResultRow[]> {
    return this.run(this.timeoutMs, async (client) => (await client.query({ text, values })).rows);
  }

  private run<T>(timeoutMs: number, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return borrow(this.pool, this.errors, timeoutMs, work, LABEL);
  }
}
