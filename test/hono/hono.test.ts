import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/errors';
import { onError, requirePermission, svcAuth, type OptionalPrincipalEnv, type PrincipalEnv } from '../../src/hono';
import { makeWorld, type World } from '../examples/world';

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});

const get = (app: { request: (r: Request) => Response | Promise<Response> }, path: string, token?: string) =>
  app.request(
    new Request(`http://127.0.0.1${path}`, {
      headers: { origin: 'https://app.test', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    }),
  );

describe('svc-auth/hono', () => {
  it('401 keeps the CORS headers other middleware prepared', async () => {
    const app = new Hono<PrincipalEnv>();
    app.use(cors({ origin: 'https://app.test' }));
    app.use(svcAuth(w.auth, { realm: 'acme' }));
    app.get('/', (c) => c.json({ user: c.var.principal.userId }));
    const r = await get(app, '/');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="acme"');
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.test');
    const ok = await get(app, '/', w.reader);
    expect(await ok.json()).toEqual({ user: 'alice' });
    expect(ok.headers.get('svc-token-expiration')).not.toBeNull();
  });

  it('403 from requirePermission keeps CORS headers and carries insufficient_scope', async () => {
    const app = new Hono<PrincipalEnv>();
    app.use(cors({ origin: 'https://app.test' }));
    app.use(svcAuth(w.auth));
    app.get(
      '/repos/:org/:repo',
      requirePermission('repo:write', { resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}` }),
      (c) => c.text('ok'),
    );
    const r = await get(app, '/repos/acme/web', w.reader);
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="insufficient_scope"');
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.test');
  });

  it('optional: c.var.principal is null without a credential, 401 with a bad one', async () => {
    const app = new Hono<OptionalPrincipalEnv>();
    app.use(svcAuth(w.auth, { optional: true, expirationHeader: false }));
    app.get('/', (c) => c.json({ user: c.var.principal?.userId ?? null }));
    expect(await (await get(app, '/')).json()).toEqual({ user: null });
    expect((await get(app, '/', 'garbage')).status).toBe(401);
    const ok = await get(app, '/', w.reader);
    expect(ok.headers.get('svc-token-expiration')).toBeNull();
  });

  it('onError: SvcAuthError per H2, HTTPException by its own response, anything else a bare 500', async () => {
    const app = new Hono<PrincipalEnv>();
    const seen: unknown[] = [];
    app.use(svcAuth(w.auth));
    app.get('/nf', () => {
      throw new NotFoundError('no such thing');
    });
    app.get('/teapot', () => {
      throw new HTTPException(418, { message: 'teapot' });
    });
    app.get('/boom', () => {
      throw new Error('secret detail');
    });
    app.get('/unguarded', requirePermission('repo:read', { resource: () => 'acme/web' }), (c) => c.text('ok'));
    app.onError(onError({ onError: (err) => seen.push(err) }));
    expect((await get(app, '/nf', w.alice)).status).toBe(404);
    expect((await get(app, '/teapot', w.alice)).status).toBe(418);
    const boom = await get(app, '/boom', w.alice);
    expect(boom.status).toBe(500);
    expect(await boom.text()).not.toContain('secret');
    expect(seen).toHaveLength(1);
    // requirePermission on an app without svcAuth for that request: fails closed.
    const bare = new Hono();
    bare.get('/x', requirePermission('repo:read', { resource: () => 'acme/web' }), (c) => c.text('ok'));
    bare.onError(onError());
    expect((await get(bare, '/x', w.reader)).status).toBe(500);
  });

  it('misuse fails when built', () => {
    // @ts-expect-error 'repo:reed' is not a Permission
    expect(() => requirePermission('repo:reed', { resource: () => 'acme/web' })).toThrow(ValidationError);
    expect(() => svcAuth(w.auth, { optional: 'yes' as unknown as boolean })).toThrow(ValidationError);
  });
});
