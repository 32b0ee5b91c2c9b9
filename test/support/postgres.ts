/**
 * The one PostgreSQL set-up of the tests. The database is shared with other
 * runs: every table gets a name unique to this run, and every pool sets an
 * application_name so a test terminates only its own backends.
 *
 * Without DATABASE_URL the suite is skipped with a visible message; with CI set
 * it fails instead, so CI can never pass by skipping.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pg from 'pg';

/** The connection string, or undefined when the database tests are off. */
export const DATABASE_URL = process.env.DATABASE_URL;
/** A random tag unique to this run (of this test file). */
export const RUN = randomBytes(4).toString('hex');

/**
 * `describe` when DATABASE_URL is set, else `describe.skip` after a warning
 * naming `what` and the test `file` (or, when CI is set, a failing test under
 * `suite`).
 */
export function describeWithDb(suite: string, what: string, file: string) {
  if (!DATABASE_URL) {
    if (process.env.CI) {
      describe(suite, () => {
        it('needs DATABASE_URL in CI', () => {
          expect.fail(`DATABASE_URL is not set; CI must run the ${what}`);
        });
      });
    } else {
      console.warn(`DATABASE_URL is not set: skipping the ${what} (${file})`);
    }
  }
  return DATABASE_URL ? describe : describe.skip;
}

/** A table (or other object) name unique to this run: `${prefix}_${RUN}`, plus `_${suffix}` when given. */
export function tableName(prefix: string, suffix?: string): string {
  return suffix === undefined ? `${prefix}_${RUN}` : `${prefix}_${RUN}_${suffix}`;
}

/**
 * A pool on DATABASE_URL with `application_name` set (filter on it to end only
 * this pool's backends). Errors of idle clients are swallowed: a terminated
 * idle connection is reported there and the pool drops it.
 */
export function newPool(app: string, extra: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10, application_name: app, ...extra });
  pool.on('error', () => {});
  return pool;
}

/**
 * Note in `log` when each of `methods` of `store` starts and ends (`<label>:start`, `<label>:end`); the store
 * does the work. `holdMs` holds the named method back that long before it runs, so that a call which waited
 * for it would start after it ended, whatever the machine's speed.
 */
export function traceCalls<S extends object>(
  store: S,
  log: string[],
  methods: Record<string, string>,
  hold?: { method: string; ms: number },
): void {
  for (const [method, label] of Object.entries(methods)) {
    const original = (store as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]?.bind(store);
    if (original === undefined) throw new Error(`traceCalls: the store has no ${method}`);
    Object.assign(store, {
      async [method](...args: unknown[]) {
        log.push(`${label}:start`);
        if (hold?.method === method) await new Promise((r) => setTimeout(r, hold.ms));
        const got = await original(...args);
        log.push(`${label}:end`);
        return got;
      },
    });
  }
}

/**
 * Note in `sent` the text of every statement `pool`'s connections send (each connection is wrapped
 * once, when first acquired), so that a test can say how many statements a call cost.
 */
export function recordStatements(pool: pg.Pool, sent: string[]): void {
  pool.on('acquire', (client) => {
    const marked = client as unknown as { counted?: boolean; query: (...args: unknown[]) => unknown };
    if (marked.counted === true) return;
    marked.counted = true;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    marked.query = (...args: unknown[]) => {
      const cfg = args[0];
      sent.push(typeof cfg === 'string' ? cfg : String((cfg as { text?: unknown }).text));
      return query(...args);
    };
  });
}
