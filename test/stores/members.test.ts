/**
 * The membership conformance suite on the memory and file stores (the
 * PostgreSQL store runs it in postgres-members.test.ts). The file store's twin
 * is a second instance on the same directory, as a second `svc` process holds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { FileMembershipStore, MemoryMembershipStore } from '../../src/stores';
import { membershipStoreConformance } from '../../src/testing';

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

membershipStoreConformance('MemoryMembershipStore', () => new MemoryMembershipStore());

const dirs = new WeakMap<FileMembershipStore, string>();
membershipStoreConformance(
  'FileMembershipStore',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-auth-members-'));
    made.push(dir);
    const store = new FileMembershipStore(dir);
    dirs.set(store, dir);
    return store;
  },
  { twin: (store) => new FileMembershipStore(dirs.get(store) as string) },
);
