/**
 * @internal Error handling of a pool client while {@link PostgresTokenStore}
 * holds it. pg-pool removes its own `'error'` listener when it hands a client
 * out, so a server-side termination that arrives between two statements
 * (failover, restart, idle timeout, `pg_terminate_backend`) is emitted on a
 * client nobody listens to: an unhandled `'error'` event ends the process.
 * @module
 */
import type { PoolClient } from 'pg';

/** @internal A checked-out client's error watch. */
export interface ClientWatch {
  /** The error the connection reported while held, if any: the client must then be destroyed. */
  readonly error: Error | undefined;
  /** Stop listening; call only when the client goes back to the pool healthy. */
  stop(): void;
}

/**
 * @internal Listen for `'error'` on a checked-out client until {@link ClientWatch.stop}.
 * The statement in progress fails on its own (pg rejects it); the listener
 * only keeps the event from being unhandled and remembers it, so that the
 * client is destroyed instead of returned to the pool.
 *
 * @example
 * ```ts
 * const watch = watchClient(client);
 * try { await work(client); } finally { if (watch.error) client.release(watch.error); else { watch.stop(); client.release(); } }
 * ```
 */
export function watchClient(client: PoolClient): ClientWatch {
  let error: Error | undefined;
  const onError = (err: Error): void => {
    error ??= err instanceof Error ? err : new Error('svc-auth: connection error');
  };
  client.on('error', onError);
  return {
    get error() {
      return error;
    },
    stop() {
      client.removeListener('error', onError);
    },
  };
}
