/**
 * The pool's clients under a connection cut, without a database: a fake pool
 * hands out clients the way pg-pool does ('acquire' first, then the client).
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { UnavailableError } from '../../src/errors';
import { PostgresTokenStore } from '../../src/stores/postgres';

class FakeClient extends EventEmitter {
  released: (Error | undefined)[] = [];
  query(): Promise<never> {
    return Promise.reject(new Error('Connection terminated'));
  }
  release(err?: Error): void {
    this.released.push(err);
  }
}

/** connect() runs the hand-out inside a macrotask, as pg does inside a socket read. */
function fakePool(beforeResolve: (c: FakeClient) => void): { pool: Pool; clients: FakeClient[]; emitter: EventEmitter } {
  const emitter = new EventEmitter();
  const clients: FakeClient[] = [];
  const pool = Object.assign(emitter, {
    connect: () =>
      new Promise<FakeClient>((resolve) =>
        setImmediate(() => {
          const c = new FakeClient();
          clients.push(c);
          emitter.emit('acquire', c);
          beforeResolve(c);
          resolve(c);
        }),
      ),
  });
  return { pool: pool as unknown as Pool, clients, emitter };
}

describe('PostgresTokenStore: connection errors on checked-out clients (issue 13, defect 1)', () => {
  it('termination in the same read as the hand-out (attack: pg_terminate_backend racing a new connection) is handled, answered UnavailableError, and the client destroyed', async () => {
    const fatal = new Error('terminating connection due to administrator command');
    // Without a listener from 'acquire' on, this emit throws out of the macrotask: the process dies.
    const { pool, clients } = fakePool((c) => c.emit('error', fatal));
    const store = new PostgresTokenStore({ pool, prepare: false });
    const err = await store.readChain('some-token-id').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnavailableError);
    expect(clients).toHaveLength(1);
    expect(clients[0]?.released).toHaveLength(1);
    expect(clients[0]?.released[0]).toBeInstanceOf(Error);
    // A late error from the dying socket is still heard.
    expect(() => clients[0]?.emit('error', new Error('late'))).not.toThrow();
  });

  it('many stores on one pool add one acquire listener, not one each', () => {
    const { pool, emitter } = fakePool(() => undefined);
    for (let i = 0; i < 25; i++) new PostgresTokenStore({ pool, table: `t${i}` });
    expect(emitter.listenerCount('acquire')).toBe(1);
  });
});
