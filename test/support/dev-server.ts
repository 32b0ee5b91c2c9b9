/**
 * The reference server (what `svc dev` runs, with its authorization server) on a free loopback port,
 * over a fresh home folder that is removed on close. By default alice is an editor of acme.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevServer, openInstance, type DevInstance, type OpenOptions } from '../../src/app/dev';
import type { ReferenceServer } from '../../src/app/server';
import type { RoleName } from '../../src/core/vocabulary';

export interface DevServer {
  base: string;
  instance: DevInstance;
  server: ReferenceServer;
  close(): Promise<void>;
}

/** Start it with `members` (`[user, resource, role]`) set first, the instance opened with `open` (as `svc serve`'s flags do). */
export async function startDevServer(
  members: readonly (readonly [user: string, resource: string, role: RoleName])[] = [['alice', 'acme', 'editor']],
  open: OpenOptions = {},
): Promise<DevServer> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-dev-'));
  const instance = await openInstance({ SVC_HOME: join(dir, 'home') }, open);
  for (const [user, resource, role] of members) await instance.members.set(user, resource, role);
  const server = await createDevServer({ instance });
  const base = await server.listen({ port: 0 });
  return {
    base,
    instance,
    server,
    close: async () => {
      await server.close();
      await instance.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
