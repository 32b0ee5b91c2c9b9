/**
 * `svc serve` builds one node:http server: the reference server can be handed
 * an existing one (it adds its request listener, and `listen` and `close` act
 * on it), and the dev server mounts its authorization server on the server it
 * bound, not on a second one.
 */
import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MemoryTokenStore, createAuth, generateKeyRing } from 'svc-auth';
import { MemoryMembershipStore } from 'svc-auth/stores';
import { createDevServer, openInstance } from '../../src/app/dev';
import { createReferenceServer, type ThingStore } from '../../src/app/server';
import { tempHome } from './helpers';

const noThings: ThingStore = {
  head: () => Promise.resolve('0'.repeat(40)),
  get: () => Promise.resolve(undefined),
  put: () => Promise.reject(new Error('read-only')),
};

describe('createReferenceServer on a node:http server it is handed', () => {
  it('serves its routes on that server, adds one request listener, and listens and closes it', async () => {
    const auth = createAuth({
      issuer: 'https://svc.test',
      keys: await generateKeyRing(),
      members: new MemoryMembershipStore(),
      tokens: new MemoryTokenStore(),
    });
    const given: Server = createServer();
    const ref = createReferenceServer({ auth, things: noThings, server: given });
    expect(ref.server).toBe(given);
    expect(given.listenerCount('request')).toBe(1);
    const url = await ref.listen({ port: 0 });
    try {
      expect(given.listening).toBe(true);
      const r = await fetch(`${url}/api/whoami`);
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ error: 'authentication' });
    } finally {
      await ref.close();
    }
    expect(given.listening).toBe(false);
  });
});

describe('the dev server of svc serve builds its node:http server once', { timeout: 60_000 }, () => {
  it('once listening, the authorization server is answered on the bound server, which has one request listener', async () => {
    const { home, cleanup } = await tempHome();
    const dev = await openInstance({ SVC_HOME: home });
    const server = await createDevServer({ instance: dev, expirySweep: false });
    const bound = server.server;
    try {
      const url = await server.listen({ port: 0 });
      expect(server.server).toBe(bound);
      expect(bound.listenerCount('request')).toBe(1);
      // The listener that serves is the one the dev server hands out, and it mounts OAuth.
      expect(bound.listeners('request')).toEqual([server.handle]);
      const meta = await fetch(`${url}/.well-known/oauth-authorization-server`);
      expect(meta.status).toBe(200);
      expect(((await meta.json()) as { issuer: string }).issuer).toBe(url);
      expect((await fetch(`${url}/api/whoami`)).status).toBe(401);
    } finally {
      await server.close();
      await dev.close();
      await cleanup();
    }
  });
});
