/**
 * The authorization server's state in PostgreSQL, for several servers sharing
 * one database (the same database as the token store): one table of entries,
 * keyed by kind and id, with the secrets in a row of their own. `pg` is an
 * optional peer dependency: this module imports its types only and calls
 * nothing but `pool.connect()`.
 * @module
 */
import type { Pool, PoolClient } from 'pg';
import { UnavailableError, ValidationError, type IssueInput } from '../../errors';
import { checkOptions, isPlainObject } from '../../core/vocabulary';
import { borrow, clientErrors, parseTableName, type ClientErrors, type TableName } from '../../stores/postgres';
import type { OAuthEntry, OAuthEntryKind, OAuthSecrets, OAuthStorage } from './types';

/**
 * Options of {@link PostgresOAuthStorage}. Checked when the storage is built.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import type { PostgresOAuthStorageOptions } from 'svc-auth/postgres';
 * const options: PostgresOAuthStorageOptions = { pool: new pg.Pool(), table: 'auth.oauth' };
 * ```
 */
export interface PostgresOAuthStorageOptions {
  /** A `pg.Pool`. The storage only borrows connections from it; it never ends it. */
  pool: Pool;
  /** Table name, `name` or `schema.name`, each part `^[a-z_][a-z0-9_]{0,62}$`. Default `svc_auth_oauth`. */
  table?: string;
  /** Longest time one call may take, in milliseconds. Default 5 000; 1 to 60 000. */
  timeoutMs?: number;
}

const MAX_ENTRY_BYTES = 256 * 1024;
const MAX_ID = 2_048;
/** One `set` in this many also deletes up to 500 expired entries: the table does not grow without bound. */
const SWEEP_EVERY = 100;

/**
 * An {@link OAuthStorage} in a PostgreSQL table. Entries are stored as JSON
 * text (any string oidc-provider writes survives), each with its expiry; reads
 * ignore expired rows and `set` deletes a few of them now and then. The
 * secrets row holds the server's private keys: give the table the care a key
 * store needs. Every failure rejects with `UnavailableError`.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { PostgresOAuthStorage } from 'svc-auth/postgres';
 * const storage = new PostgresOAuthStorage({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * await storage.migrate();
 * ```
 */
export class PostgresOAuthStorage implements OAuthStorage {
  readonly #pool: Pool;
  readonly #table: TableName;
  readonly #timeoutMs: number;
  readonly #errors: ClientErrors;
  #writes = 0;

  constructor(options: PostgresOAuthStorageOptions) {
    if (!isPlainObject(options)) throw new ValidationError([{ path: 'options', message: 'expected { pool, table?, timeoutMs? }' }]);
    const issues: IssueInput[] = [];
    checkOptions(options, ['pool', 'table', 'timeoutMs'], '', issues);
    const pool: unknown = options.pool;
    if (typeof pool !== 'object' || pool === null || typeof (pool as { connect?: unknown }).connect !== 'function') {
      issues.push({ path: 'pool', message: 'expected a pg.Pool' });
    }
    const timeout = options.timeoutMs ?? 5_000;
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 60_000)
      issues.push({ path: 'timeoutMs', message: 'expected an integer from 1 to 60 000' });
    let table: TableName | undefined;
    try {
      table = parseTableName(options.table ?? 'svc_auth_oauth');
    } catch (err) {
      issues.push(...(err as ValidationError).issues);
    }
    if (issues.length > 0 || table === undefined) throw new ValidationError(issues);
    this.#pool = pool as Pool;
    this.#table = table;
    this.#timeoutMs = timeout;
    this.#errors = clientErrors(this.#pool);
  }

  /**
   * Create the table and its indexes if they are missing. Safe to run from
   * several servers at once and to run again.
   *
   * @example
   * ```ts
   * await new PostgresOAuthStorage({ pool }).migrate();
   * ```
   */
  async migrate(): Promise<void> {
    const t = this.#table.quoted;
    const n = this.#table.table;
    await this.#run(async (c) => {
      await c.query('BEGIN');
      await c.query({
        text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
        values: [JSON.stringify(['svc-auth', 'oauth-migrate', this.#table.plain])],
      });
      await c.query(`CREATE TABLE IF NOT EXISTS ${t} (
        kind text NOT NULL,
        id text NOT NULL,
        entry text NOT NULL,
        grant_id text,
        alias text,
        expires_at timestamptz,
        consumed_at timestamptz,
        PRIMARY KEY (kind, id)
      )`);
      await c.query(`CREATE INDEX IF NOT EXISTS "${n}_grant" ON ${t} (grant_id) WHERE grant_id IS NOT NULL`);
      await c.query(`CREATE INDEX IF NOT EXISTS "${n}_alias" ON ${t} (kind, alias) WHERE alias IS NOT NULL`);
      await c.query(`CREATE INDEX IF NOT EXISTS "${n}_expires" ON ${t} (expires_at) WHERE expires_at IS NOT NULL`);
      await c.query('COMMIT');
    }, 60_000);
  }

  async set(kind: OAuthEntryKind, id: string, entry: OAuthEntry, expiresAt: Date | null): Promise<void> {
    const text = JSON.stringify(entry);
    if (Buffer.byteLength(text) > MAX_ENTRY_BYTES) throw new UnavailableError('an OAuth entry is larger than 256 KiB');
    const consumed = typeof entry.consumed === 'number' ? new Date(entry.consumed * 1000) : null;
    const grant = typeof entry.grantId === 'string' ? entry.grantId : null;
    const alias = kind === 'DeviceCode' ? entry.userCode : kind === 'Session' ? entry.uid : undefined;
    const sweep = ++this.#writes % SWEEP_EVERY === 0;
    const t = this.#table.quoted;
    await this.#run(async (c) => {
      await c.query({
        text: `INSERT INTO ${t} (kind, id, entry, grant_id, alias, expires_at, consumed_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
          ON CONFLICT (kind, id) DO UPDATE SET entry = EXCLUDED.entry, grant_id = EXCLUDED.grant_id, alias = EXCLUDED.alias,
          expires_at = EXCLUDED.expires_at, consumed_at = EXCLUDED.consumed_at`,
        values: [kind, id, text, grant, typeof alias === 'string' ? alias : null, expiresAt, consumed],
      });
      if (sweep) {
        await c.query({
          text: `DELETE FROM ${t} WHERE ctid IN (SELECT ctid FROM ${t} WHERE expires_at <= $1 LIMIT 500)`,
          values: [new Date()],
        });
      }
    });
  }

  get(kind: OAuthEntryKind, id: string): Promise<OAuthEntry | undefined> {
    if (id.length > MAX_ID) return Promise.resolve(undefined);
    return this.#read('kind = $1 AND id = $2', [kind, id]);
  }

  findByUserCode(userCode: string): Promise<OAuthEntry | undefined> {
    return this.#read(`kind = 'DeviceCode' AND alias = $1`, [userCode]);
  }

  findByUid(uid: string): Promise<OAuthEntry | undefined> {
    return this.#read(`kind = 'Session' AND alias = $1`, [uid]);
  }

  async consume(kind: OAuthEntryKind, id: string, at: Date): Promise<void> {
    await this.#run((c) =>
      c.query({ text: `UPDATE ${this.#table.quoted} SET consumed_at = $3 WHERE kind = $1 AND id = $2`, values: [kind, id, at] }),
    );
  }

  async destroy(kind: OAuthEntryKind, id: string): Promise<void> {
    await this.#run((c) => c.query({ text: `DELETE FROM ${this.#table.quoted} WHERE kind = $1 AND id = $2`, values: [kind, id] }));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.#run((c) => c.query({ text: `DELETE FROM ${this.#table.quoted} WHERE grant_id = $1`, values: [grantId] }));
  }

  async initSecrets(fresh: OAuthSecrets): Promise<OAuthSecrets> {
    const t = this.#table.quoted;
    return this.#run(async (c) => {
      await c.query({
        text: `INSERT INTO ${t} (kind, id, entry) VALUES ('Secrets', 'current', $1) ON CONFLICT (kind, id) DO NOTHING`,
        values: [JSON.stringify(fresh)],
      });
      // A second statement, so that it sees a row another server committed while this insert waited.
      const { rows } = await c.query<{ entry: string }>(`SELECT entry FROM ${t} WHERE kind = 'Secrets' AND id = 'current'`);
      const row = rows[0];
      if (row === undefined) throw new UnavailableError('the OAuth secrets row is missing');
      return JSON.parse(row.entry) as OAuthSecrets;
    });
  }

  async #read(where: string, values: unknown[]): Promise<OAuthEntry | undefined> {
    const { rows } = await this.#run((c) =>
      c.query<{ entry: string; consumed: string | null }>({
        text: `SELECT entry, floor(extract(epoch FROM consumed_at))::text AS consumed FROM ${this.#table.quoted}
          WHERE ${where} AND (expires_at IS NULL OR expires_at > $${values.length + 1}) LIMIT 1`,
        values: [...values, new Date()],
      }),
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const entry = JSON.parse(row.entry) as OAuthEntry;
    if (row.consumed !== null) entry.consumed = Number(row.consumed);
    return entry;
  }

  async #run<T>(work: (client: PoolClient) => Promise<T>, timeoutMs = this.#timeoutMs): Promise<T> {
    try {
      return await borrow(this.#pool, this.#errors, timeoutMs, work);
    } catch (err) {
      throw err instanceof UnavailableError
        ? new UnavailableError(err.message.replace('token store', 'OAuth storage'), { cause: err.cause })
        : new UnavailableError('OAuth storage unavailable', { cause: err });
    }
  }
}
