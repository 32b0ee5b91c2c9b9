import cors from '@fastify/cors';
import Fastify, { type FastifyRequest } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError, principalOf, ValidationError } from 'svc-auth';
import { errorHandler, requirePermission, svcAuth } from 'svc-auth/fastify';
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

describe('svc-auth/fastify errorHandler: foreign errors (issue 18, item 4)', () => {
  it("a route throwing new Error('db password <PAT>') answers a bare 500 internal error, never the message; request.log and onError get the error (was: the message, token and all)", async () => {
    const logged: string[] = [];
    const seen: unknown[] = [];
    const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logged.push(line) } } });
    await app.register(svcAuth, { auth: w.auth });
    app.setErrorHandler(errorHandler({ onError: (err) => seen.push(err) }));
    app.get('/leak', async () => {
      throw new Error(`db password ${w.reader}`);
    });
    app.get('/leak-503', async () => {
      throw Object.assign(new Error(`db password ${w.reader}`), { statusCode: 503 });
    });
    const r = await app.inject({ url: '/leak', headers: headers(w.alice) });
    expect(r.statusCode).toBe(500);
    expect(r.json()).toEqual({ error: 'internal', message: 'internal error' });
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.body).not.toContain(w.reader);
    expect(seen).toHaveLength(1);
    expect(String(seen[0])).toContain('db password');
    expect(logged.some((l) => l.includes('db password'))).toBe(true);
    // A 5xx status the error carries is kept; the body is as bare.
    const unavailable = await app.inject({ url: '/leak-503', headers: headers(w.alice) });
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.json()).toEqual({ error: 'internal', message: 'internal error' });
    await app.close();
  });

  it("a client error of Fastify's own (unparsable JSON body: 400, a 4xx statusCode) keeps Fastify's answer", async () => {
    const app = await build();
    app.post('/echo', async (req) => req.body);
    const r = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { ...headers(w.alice), 'content-type': 'application/json' },
      payload: '{',
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
    await app.close();
  });

  it('a hostile error object (throwing statusCode getter) still gets the bare 500', async () => {
    const app = await build();
    app.get('/hostile', async () => {
      const err = new Error('x');
      Object.defineProperty(err, 'statusCode', {
        get() {
          throw new Error('getter');
        },
      });
      throw err;
    });
    const r = await app.inject({ url: '/hostile', headers: headers(w.alice) });
    expect(r.statusCode).toBe(500);
    expect(r.json()).toEqual({ error: 'internal', message: 'internal error' });
    await app.close();
  });
});

describe('svc-auth/fastify: headers set before an error (issue 18, item 10)', () => {
  it('a route that sets Set-Cookie (reply or raw) then throws ForbiddenError answers 403 without the cookie; CORS and the expiry stay (was: 403 with the cookie)', async () => {
    const app = await build();
    app.get('/cookie', async (_req, reply) => {
      reply.header('set-cookie', 'session=abc; HttpOnly');
      reply.header('cache-control', 'public, max-age=600');
      reply.raw.setHeader('x-raw', 'yes');
      throw new ForbiddenError('not you');
    });
    const r = await app.inject({ url: '/cookie', headers: headers(w.alice) });
    expect(r.statusCode).toBe(403);
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(r.headers['x-raw']).toBeUndefined();
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['access-control-allow-origin']).toBe('https://app.test');
    expect(r.headers['svc-token-expiration']).toMatch(/Z$/);
    expect(r.json()).toMatchObject({ error: 'forbidden' });
    await app.close();
  });
});

describe('svc-auth/fastify: typing (issue 18, item 11)', () => {
  it('principalOf(request.raw) answers the principal (was: type-checks but throws)', async () => {
    const app = await build();
    app.get('/raw', async (req) => ({ user: principalOf(req.raw).userId }));
    const r = await app.inject({ url: '/raw', headers: headers(w.reader) });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ user: 'alice' });
    await app.close();
  });

  it('requirePermission infers the route Params for resource and thing: no annotation needed', async () => {
    const app = await build();
    app.get<{ Params: { org: string; repo: string; type: string; name: string } }>(
      '/infer/:org/:repo/:type/:name',
      {
        preHandler: requirePermission('repo:read', {
          resource: (req) => `${req.params.org}/${req.params.repo}`,
          thing: (req) => `${req.params.type}/${req.params.name}`,
        }),
      },
      async (req) => ({ user: req.principal.userId }),
    );
    expect((await app.inject({ url: '/infer/acme/web/Doc/readme', headers: headers(w.docs) })).json()).toEqual({ user: 'alice' });
    expect((await app.inject({ url: '/infer/acme/api/Doc/readme', headers: headers(w.docs) })).statusCode).toBe(403);
    await app.close();
  });
});

describe('svc-auth/fastify: validation issues over HTTP (issue 18, item 11)', () => {
  it('a ValidationError a route throws answers issues shaped like ValidationError.issues: code, path array, pathText, message', async () => {
    const app = await build();
    app.post('/tokens', async (req) => w.auth.client(req.principal).token.create({ name: 'no spaces allowed' }));
    const r = await app.inject({ method: 'POST', url: '/tokens', headers: headers(w.alice) });
    expect(r.statusCode).toBe(400);
    const body = r.json<{ issues: { code: string; path: unknown[]; pathText: string; message: string }[] }>();
    expect(body.issues[0]).toEqual({ code: expect.any(String), path: ['name'], pathText: 'name', message: expect.any(String) });
    await app.close();
  });
});
