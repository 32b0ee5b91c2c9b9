/**
 * @internal Error handling of the pool's clients for {@link PostgresTokenStore}.
 * pg-pool removes its own `'error'` listener when it hands a client out, so a
 * server-side termination (failover, restart, idle timeout,
 * `pg_terminate_backend`) emitted on a checked-out client nobody listens to
 * is an unhandled `'error'` event, and that ends the process.
 *
 * Listening from the moment `pool.connect()` resolves is too late: pg parses
 * a whole network read at once, so when a new connection's ReadyForQuery and
 * the server's FATAL termination arrive in one read, the pool hands the
 * client out and the error is emitted in the same synchronous pass, before
 * any promise callback runs. The listener is therefore put on in the pool's
 * `'acquire'` event (emitted synchronously, before the pool drops its own
 * listener) and stays for the client's life.
 * @module
 */
import type { Pool, PoolClient } from 'pg';
import { UnavailableError } from '../../errors';
import { toStoreError } from './errors';

/** @internal the errors a pool's clients reported, one watcher per pool. */
export class ClientErrors {
  readonly #errors = new WeakMap<PoolClient, Error>();
  readonly #watched = new WeakSet<PoolClient>();

  /** Start watching every client this pool hands out (when the pool can tell). */
  constructor(pool: Pool) {
    // A pool-like object without events still works: `borrow` watches each client it gets.
    if (typeof (pool as { on?: unknown }).on === 'function') pool.on('acquire', (c) => this.watch(c));
  }

  /**
   * Listen for `'error'` on `client` for its whole life (idempotent). The
   * statement in progress fails on its own; the listener keeps the event from
   * being unhandled and remembers it, so the client is destroyed, not reused.
   */
  watch(client: PoolClient): void {
    if (this.#watched.has(client)) return;
    this.#watched.add(client);
    client.on('error', (err: unknown) => {
      if (!this.#errors.has(client)) this.#errors.set(client, err instanceof Error ? err : new Error('svc-auth: connection error'));
    });
  }

  /** The error this client reported, if any: then it must be released with it (destroyed). */
  errorOf(client: PoolClient): Error | undefined {
    return this.#errors.get(client);
  }
}

// One watcher per pool, however many stores share it: a listener per store
// would pile up on a shared pool.
const watchers = new WeakMap<object, ClientErrors>();

/**
 * @internal The watcher of `pool`, made on first use.
 *
 * @example
 * ```ts
 * const errors = clientErrors(pool);
 * const client = await pool.connect();
 * errors.watch(client);
 * try { await work(client); } finally { client.release(errors.errorOf(client)); }
 * ```
 */
export function clientErrors(pool: Pool): ClientErrors {
  let w = watchers.get(pool);
  if (w === undefined) {
    w = new ClientErrors(pool);
    watchers.set(pool, w);
  }
  return w;
}

/**
 * @internal Borrow a connection for `work` under a deadline; `label` names the store in errors. A connection is
 * returned to the pool only after clean work; after an error or a missed
 * deadline it is destroyed, so a dead or half-used connection is never handed
 * out again (and an open transaction on it is rolled back by the server).
 *
 * @example
 * ```ts
 * const rows = await borrow(pool, clientErrors(pool), 5_000, async (c) => (await c.query('SELECT 1')).rows);
 * ```
 */
export function borrow<T>(
  pool: Pool,
  errors: ClientErrors,
  timeoutMs: number,
  work: (client: PoolClient) => Promise<T>,
  label = 'token store',
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let client: PoolClient | null = null;
    let released = false;
    // A client that reported an error goes back with it, so the pool destroys it;
    // its listener stays, so a late 'error' from its dying socket is handled too.
    const release = (err?: Error): void => {
      if (client === null || released) return;
      released = true;
      client.release(err ?? errors.errorOf(client));
    };
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      settle(() => reject(new UnavailableError(`${label} unavailable: timed out`)));
      release(new Error('svc-auth: token store deadline passed'));
    }, timeoutMs);
    pool.connect().then(
      async (c) => {
        client = c;
        // Already watched since the pool's 'acquire'; this covers a pool that does not emit it.
        errors.watch(c);
        if (settled) return release();
        try {
          const value = await work(c);
          release();
          settle(() => resolve(value));
        } catch (err) {
          release(err instanceof Error ? err : new Error('svc-auth: token store query failed'));
          settle(() => reject(toStoreError(err, label)));
        }
      },
      (err: unknown) => settle(() => reject(toStoreError(err, label))),
    );
  });
}
