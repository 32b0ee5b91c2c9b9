/**
 * @internal Service accounts on PostgreSQL: `<table>_service_accounts` (one row per account, the
 * checked record as jsonb, its version) and `<table>_machine_clients` (each client id once, across
 * accounts), both created by `migrate()`, so a database of an earlier release gains them in place.
 * A change is one transaction: the compare-and-set on the version, then the account's client ids.
 * @module
 */
import type { PoolClient } from 'pg';
import { ConflictError, ValidationError } from '../../../../errors';
import { storable } from '../text';
import { checkServiceAccount, type ServiceAccountRecord } from '../../../service-accounts';
import { BOUNDED_ACCOUNT } from '../../../views';
import { accountKey, parsed } from './account-reads';

/** @internal The statements of the service accounts, for one token table. */
export interface AccountsSql {
  readonly migrate: readonly string[];
  /**
   * The accounts named in $2 (a JSON array of `[org, name]` pairs), as rows of one jsonb
   * column `account`: `[[org, name], record as JSON text]`. Not a statement: the chain reads
   * carry it (sql/reads.ts), so an account read beside a chain costs no statement of its own.
   */
  readonly riders: string;
  /** The record (JSON text) of the one account $2 (org), $3 (name): a scalar subquery for the lone request's lean read (sql/reads.ts). */
  readonly rider: string;
  /** $1 org. */
  readonly list: string;
  /** $1 org, $2 name, $3 record. One row when created. */
  readonly insert: string;
  /** $1 org, $2 name, $3 record, $4 version. One row when the stored version was $4 - 1. */
  readonly update: string;
  /** $1 org, $2 name. */
  readonly clearClients: string;
  /** $1 org, $2 name, $3 client ids. */
  readonly addClients: string;
}

/**
 * @internal Build the statements; `sibling(suffix)` quotes a table beside the token table.
 *
 * @example
 * ```ts
 * const sql = buildAccountsSql((s) => `"svc_auth_tokens_${s}"`);
 * ```
 */
export function buildAccountsSql(sibling: (suffix: string) => string): AccountsSql {
  const a = sibling('service_accounts');
  const c = sibling('machine_clients');
  return {
    migrate: [
      `CREATE TABLE IF NOT EXISTS ${a} (org text NOT NULL, name text NOT NULL, record jsonb NOT NULL, version integer NOT NULL, PRIMARY KEY (org, name))`,
      `CREATE TABLE IF NOT EXISTS ${c} (client_id text NOT NULL PRIMARY KEY, org text NOT NULL, name text NOT NULL)`,
    ],
    // LIMIT 1 keeps each pair a primary-key probe: flattened, the join hashes a scan of the whole table.
    // The record travels as text: the driver does not parse it, and a record seen before is not checked again (account-reads.ts).
    riders: `SELECT jsonb_build_array(w.k, s.record::text) AS account FROM jsonb_array_elements($2::jsonb) AS w(k)
        CROSS JOIN LATERAL (SELECT record FROM ${a} WHERE org = w.k->>0 AND name = w.k->>1 LIMIT 1) s`,
    rider: `SELECT record::text FROM ${a} WHERE org = $2 AND name = $3`,
    list: `SELECT record FROM ${a} WHERE org = $1 ORDER BY name`,
    insert: `INSERT INTO ${a} (org, name, record, version) VALUES ($1, $2, $3, 1) ON CONFLICT DO NOTHING RETURNING 1 AS done`,
    update: `UPDATE ${a} SET record = $3, version = $4 WHERE org = $1 AND name = $2 AND version = $4 - 1 RETURNING 1 AS done`,
    clearClients: `DELETE FROM ${c} WHERE org = $1 AND name = $2`,
    addClients: `INSERT INTO ${c} (client_id, org, name) SELECT unnest($3::text[]), $1, $2`,
  };
}

/**
 * @internal The three store methods over `run` (a borrowed connection under the store's
 * deadline of `timeoutMs`); a read goes to `batched` (the chain batcher, by `accountKey`),
 * which bounds it within `timeoutMs` itself: so it also answers {@link BOUNDED_ACCOUNT}, with a
 * shared frozen record (the request path only reads it).
 *
 * @example
 * ```ts
 * const accounts = pgAccounts(sql.accounts, (work) => run(timeoutMs, work), (key, shared) => batcher.readAccount(key, shared), timeoutMs);
 * await accounts.readServiceAccount('acme', 'ci-bot');
 * ```
 */
export function pgAccounts(
  sql: AccountsSql,
  run: <T>(work: (client: PoolClient) => Promise<T>) => Promise<T>,
  batched: (key: string, shared: boolean) => Promise<ServiceAccountRecord | null>,
  timeoutMs: number,
) {
  async function read(org: string, name: string, shared: boolean): Promise<ServiceAccountRecord | null> {
    if (typeof org !== 'string' || typeof name !== 'string' || org.length > 100 || name.length > 64) return null;
    if (!storable(org) || !storable(name)) return null; // no such account, and no text PostgreSQL refuses
    return batched(accountKey(org, name), shared);
  }
  const readServiceAccount = (org: string, name: string): Promise<ServiceAccountRecord | null> => read(org, name, false);
  return {
    readServiceAccount,
    // Set by Object.assign with the rest, never declared: the declarations do not name the private symbol.
    [BOUNDED_ACCOUNT](this: { readServiceAccount?: unknown }, org: string, name: string, withinMs: number) {
      // Declines when readServiceAccount was replaced, or when the caller's deadline is shorter than the store's own.
      return this.readServiceAccount !== readServiceAccount || !(withinMs >= timeoutMs) ? undefined : read(org, name, true);
    },
    async listServiceAccounts(org: string): Promise<ServiceAccountRecord[]> {
      if (typeof org !== 'string') throw new ValidationError([{ path: 'org', message: 'expected an org name' }]);
      if (org.length > 100 || !storable(org)) return [];
      const { rows } = await run((client) => client.query({ text: sql.list, values: [org] }));
      return rows.map((row) => parsed(row as { record?: unknown }) as ServiceAccountRecord);
    },
    async putServiceAccount(given: ServiceAccountRecord): Promise<boolean> {
      const r = checkServiceAccount(given, 'date');
      let bad = false;
      // NUL and lone surrogates: text jsonb refuses, said as bad input rather than as a database failure.
      const json = JSON.stringify(r, (_key, value: unknown) => ((bad ||= typeof value === 'string' && !storable(value)), value));
      if (bad) throw new ValidationError([{ path: 'serviceAccount', message: 'must not contain NUL characters or lone surrogates' }]);
      return run(async (client) => {
        await client.query('BEGIN');
        const done =
          r.version === 1
            ? await client.query({ text: sql.insert, values: [r.org, r.name, json] })
            : await client.query({ text: sql.update, values: [r.org, r.name, json, r.version] });
        if (done.rowCount !== 1) {
          await client.query('ROLLBACK');
          return false;
        }
        await client.query({ text: sql.clearClients, values: [r.org, r.name] });
        try {
          if (r.clients.length > 0) await client.query({ text: sql.addClients, values: [r.org, r.name, r.clients.map((c) => c.clientId)] });
        } catch (err) {
          // Thrown out of the work: the connection is destroyed, and the server rolls the change back.
          if ((err as { code?: unknown }).code === '23505')
            throw new ConflictError('a client id of this account belongs to another service account', { cause: err });
          throw err;
        }
        await client.query('COMMIT');
        return true;
      });
    },
  };
}
