/**
 * A `pg` pool for the benchmarks that counts the statements its connections send, so that a benchmark
 * can say how many one `authenticate` costs. Not a benchmark itself.
 */
import pg from 'pg';

/** A pool of `max` connections to `url`, and the count of statements sent through it (settable, to reset). */
export function countedPool(url: string, max: number): { pool: pg.Pool; sent: { count: number } } {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => {});
  const sent = { count: 0 };
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      sent.count++;
      return original(...args);
    };
  });
  return { pool, sent };
}
