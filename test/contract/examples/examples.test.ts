/**
 * The framework examples under examples/ (the code docs/frameworks.md shows),
 * run against real servers with real HTTP requests on loopback.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp as expressApp } from '../../../examples/express';
import { createApp as fastifyApp } from '../../../examples/fastify';
import { createHandler as fetchHandler } from '../../../examples/fetch';
import { createApp as honoApp } from '../../../examples/hono';
import { createApp as nodeApp } from '../../../examples/node-http';
import { call, close, listen, makeWorld, type World } from './world';

interface Running {
  url: string;
  stop(): Promise<void>;
}

const frameworks: Record<string, (w: World) => Promise<Running>> = {
  'Express 5': async (w) => {
    const server = expressApp(w.auth).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, stop: () => close(server) };
  },
  'Hono (@hono/node-server)': async (w) => {
    const app = honoApp(w.auth);
    const server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
    });
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, stop: () => close(server) };
  },
  'Fastify 5': async (w) => {
    const app = await fastifyApp(w.auth);
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url, stop: () => app.close() };
  },
  'node:http': async (w) => {
    const server = nodeApp(w.auth);
    return { url: await listen(server), stop: () => close(server) };
  },
};

describe.each(Object.keys(frameworks))('examples/%s', (name) => {
  let w: World;
  let run: Running;
  beforeAll(async () => {
    w = await makeWorld();
    run = await (frameworks[name] as (w: World) => Promise<Running>)(w);
  });
  afterAll(async () => run?.stop());

  const head = '/api/repos/acme/web/head';

  it('200 for an allowed request, with Svc-Token-Expiration', async () => {
    const r = await call(run.url, 'GET', head, w.reader);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ org: 'acme', repo: 'web', user: 'alice' });
    expect(r.headers.get('svc-token-expiration')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  });

  it('401 with a bare Bearer realm challenge for no credential', async () => {
    const r = await call(run.url, 'GET', head);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(await r.json()).toMatchObject({ error: 'authentication', reason: 'missing' });
  });

  it('401 invalid_token "the token is malformed" for Bearer garbage', async () => {
    const r = await call(run.url, 'GET', head, 'Bearer garbage');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="invalid_token", error_description="the token is malformed"');
  });

  it('401 invalid_token for a revoked credential', async () => {
    const r = await call(run.url, 'GET', head, w.revoked);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="svc", error="invalid_token"/);
    expect(await r.json()).toMatchObject({ reason: 'revoked' });
  });

  it.each([
    ['scope', 'reader', 'Doc/readme'],
    ['role', 'bob', 'Doc/readme'],
    ['thing', 'docs', 'Img/logo'],
  ] as const)('403 insufficient_scope for a %s denial', async (reason, who, thing) => {
    const r = await call(run.url, 'PUT', `/api/repos/acme/web/things/${thing}`, w[who]);
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="insufficient_scope"');
    expect(await r.json()).toMatchObject({ error: 'forbidden', reason });
  });

  it('an allowed thing write passes', async () => {
    const r = await call(run.url, 'PUT', '/api/repos/acme/web/things/Doc/readme', w.docs);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ written: 'Doc/readme' });
  });

  it('an async route throwing NotFoundError or ConflictError is answered per H2 and the server keeps serving', async () => {
    const missing = await call(run.url, 'DELETE', '/api/tokens/no-such-name', w.alice);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
    const clash = await call(run.url, 'POST', '/api/tokens/reader', w.alice);
    expect(clash.status).toBe(409);
    expect(await clash.json()).toMatchObject({ error: 'conflict' });
    expect((await call(run.url, 'GET', head, w.reader)).status).toBe(200);
  });

  it('a router mounted under /api decides on acme/web, not on the rewritten web/head (mounted-prefix confusion)', async () => {
    // mallory is editor in an org named `web`: a resource read from the rewritten URL would be web/head and allow.
    const r = await call(run.url, 'GET', head, w.mallory);
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ reason: 'role' });
  });
});

describe('examples/fetch (served by @hono/node-server)', () => {
  let w: World;
  let server: Server;
  let url = '';
  beforeAll(async () => {
    w = await makeWorld();
    const handler = fetchHandler(w.auth);
    server = await new Promise<Server>((resolve) => {
      const s = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
    });
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => close(server));

  it('200, 401 and 403 like the frameworks', async () => {
    const ok = await call(url, 'GET', '/api/repos/acme/web/head', w.reader);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('svc-token-expiration')).not.toBeNull();
    expect((await call(url, 'GET', '/api/repos/acme/web/head')).headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect((await call(url, 'GET', '/api/repos/acme/api/head', w.reader)).status).toBe(403);
    expect((await call(url, 'GET', '/api/nope', w.reader)).status).toBe(404);
  });
});
