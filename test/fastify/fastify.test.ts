import cors from '@fastify/cors';
import Fastify, { type FastifyRequest } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/errors';
import { errorHandler, requirePermission, svcAuth } from '../../src/fastify';
import { makeWorld, type World } from '../examples/world';

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});

type Repo = { Params: { org: string; repo: string } };
const headers = (token?: string): Record<string, string> => ({
  origin: 'https://app.test',
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

async function build(options: Record<string, unknown> = {}) {
  const app = Fastify();
  await app.register(cors, { origin: 'https://app.test' });
  await app.register(svcAuth, { auth: w.auth, ...options });
  app.setErrorHandler(errorHandler());
  app.get('/', async (req) => ({ user: req.principal?.userId ?? null }));
  app.get<Repo>(
    '/repos/:org/:repo',
    { preHandler: requirePermission('repo:write', { resource: (req: FastifyRequest<Repo>) => `${req.params.org}/${req.params.repo}` }) },
    async () => ({ ok: true }),
  );
  app.get('/nf', async () => {
    throw new NotFoundError('nope');
  });
  app.get('/boom', async () => {
    throw new Error('not ours');
  });
  return app;
}

describe('svc-auth/fastify', () => {
  it('401 and 403 answer through reply: @fastify/cors headers are kept', async () => {
    const app = await build();
    const none = await app.inject({ method: 'GET', url: '/', headers: headers() });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="svc"');
    expect(none.headers['access-control-allow-origin']).toBe('https://app.test');
    const denied = await app.inject({ method: 'GET', url: '/repos/acme/web', headers: headers(w.reader) });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ error: 'forbidden', reason: 'scope' });
    expect(denied.headers['access-control-allow-origin']).toBe('https://app.test');
    const ok = await app.inject({ method: 'GET', url: '/', headers: headers(w.reader) });
    expect(ok.json()).toEqual({ user: 'alice' });
    expect(ok.headers['svc-token-expiration']).toMatch(/Z$/);
    await app.close();
  });

  it('optional and realm: null principal without a credential, 401 in realm acme with a bad one', async () => {
    const app = await build({ optional: true, realm: 'acme', expirationHeader: false });
    expect((await app.inject({ url: '/', headers: headers() })).json()).toEqual({ user: null });
    const bad = await app.inject({ url: '/', headers: { authorization: 'Bearer garbage' } });
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer realm="acme", error="invalid_token"/);
    expect((await app.inject({ url: '/repos/acme/web', headers: headers() })).statusCode).toBe(401);
    expect((await app.inject({ url: '/', headers: headers(w.reader) })).headers['svc-token-expiration']).toBeUndefined();
    await app.close();
  });

  it('errorHandler: SvcAuthError per H2; other errors keep Fastify default handling', async () => {
    const app = await build();
    const nf = await app.inject({ url: '/nf', headers: headers(w.alice) });
    expect(nf.statusCode).toBe(404);
    expect(nf.json()).toMatchObject({ error: 'not_found' });
    expect((await app.inject({ url: '/boom', headers: headers(w.alice) })).statusCode).toBe(500);
    await app.close();
  });

  it('misuse fails at register, and requirePermission without the plugin fails closed', async () => {
    const app = Fastify();
    await expect(app.register(svcAuth, { auth: w.auth, realm: 'a"b' }).ready()).rejects.toBeInstanceOf(ValidationError);
    const bare = Fastify();
    bare.get('/x', { preHandler: requirePermission('repo:read', { resource: () => 'acme/web' }) }, async () => ({ ok: true }));
    expect((await bare.inject({ url: '/x', headers: headers(w.reader) })).statusCode).toBe(500);
    // @ts-expect-error 'repo:reed' is not a Permission
    expect(() => requirePermission('repo:reed', { resource: () => 'acme/web' })).toThrow(ValidationError);
  });
});
