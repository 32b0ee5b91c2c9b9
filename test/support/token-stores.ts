/**
 * The three token stores a behaviour is checked on: memory, file (a temp
 * folder) and PostgreSQL (a table of its own per store, only with
 * DATABASE_URL; without it a warning names the file, and with CI set a
 * failing test says so). Call `dropStores` in `afterAll`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileTokenStore, MemoryTokenStore, type TokenStore } from '../../src/stores';
import { PostgresTokenStore } from '../../src/stores/postgres';
import { DATABASE_URL, RUN, newPool, tableName } from './postgres';

const cleanups: (() => Promise<unknown>)[] = [];

/** Remove the temp folders and tables made so far. */
export async function dropStores(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c();
}

let tables = 0;

/** `[name, make]` for each store this run can use; `file` names the test file in the warning. */
export function tokenStores(file: string): [string, () => Promise<TokenStore>][] {
  const stores: [string, () => Promise<TokenStore>][] = [
    ['memory', async () => new MemoryTokenStore()],
    [
      'file',
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'svc-stores-'));
        cleanups.push(() => rm(dir, { recursive: true, force: true }));
        return new FileTokenStore(dir);
      },
    ],
  ];
  if (DATABASE_URL) {
    stores.push([
      'postgres',
      async () => {
        const pool = newPool(`svc_auth_stores_${RUN}`);
        const table = tableName('svc_tokens_matrix', String(tables++));
        const store = new PostgresTokenStore({ pool, table });
        await store.migrate();
        cleanups.push(async () => {
          await pool.query(`DROP TABLE IF EXISTS ${table}`);
          await pool.end();
        });
        return store;
      },
    ]);
  } else if (process.env.CI) {
    describe('PostgreSQL', () => {
      it('needs DATABASE_URL in CI', () => {
        expect.fail(`DATABASE_URL is not set; CI must run ${file} on PostgreSQL`);
      });
    });
  } else {
    console.warn(`DATABASE_URL is not set: ${file} runs on the memory and file stores only`);
  }
  return stores;
}

/** The same store, without its synchronous read: every chain read and account read is a promise. */
export function waitingStore(store: MemoryTokenStore): TokenStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'readChainSync') return undefined;
      if (key === 'readServiceAccount') return (org: string, name: string) => Promise.resolve(target.readServiceAccount(org, name));
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as unknown as TokenStore;
}
