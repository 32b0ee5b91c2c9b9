import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError, ValidationError } from 'svc-auth';
import { onError, requirePermission, svcAuth, type OptionalPrincipalEnv, type PrincipalEnv } from 'svc-auth/hono';
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

describe('svc-auth/hono: headers set before an error (issue 18, item 10)', () => {
  it('a route that sets Set-Cookie then throws ForbiddenError answers 403 without the cookie; CORS and the expiry stay (was: 403 with the cookie)', async () => {
    const app = new Hono<PrincipalEnv>();
    app.use(cors({ origin: 'https://app.test' }));
    app.use(svcAuth(w.auth));
    app.get('/cookie', (c) => {
      c.header('set-cookie', 'session=abc; HttpOnly');
      c.header('cache-control', 'public, max-age=600');
      throw new ForbiddenError('not you');
    });
    app.get('/teapot', (c) => {
      c.header('set-cookie', 'session=abc; HttpOnly');
      throw new HTTPException(418, { message: 'teapot' });
    });
    app.get('/boom', (c) => {
      c.res.headers.set('set-cookie', 'session=abc');
      throw new Error('secret detail');
    });
    app.onError(onError());
    for (const [path, status] of [
      ['/cookie', 403],
      ['/teapot', 418],
      ['/boom', 500],
    ] as const) {
      const r = await get(app, path, w.alice);
      expect(r.status).toBe(status);
      expect(r.headers.get('set-cookie')).toBeNull();
      expect(r.headers.get('access-control-allow-origin')).toBe('https://app.test');
      expect(r.headers.get('svc-token-expiration')).toMatch(/Z$/);
    }
    const forbidden = await get(app, '/cookie', w.alice);
    expect(forbidden.headers.get('cache-control')).toBe('no-store');
    expect(await forbidden.json()).toMatchObject({ error: 'forbidden' });
  });

  it('a 401 of svcAuth drops a cookie an earlier middleware set, keeps CORS', async () => {
    const app = new Hono<PrincipalEnv>();
    app.use(cors({ origin: 'https://app.test' }));
    app.use(async (c, next) => {
      c.header('set-cookie', 'tracking=1');
      await next();
    });
    app.use(svcAuth(w.auth));
    app.get('/', (c) => c.text('ok'));
    const r = await get(app, '/');
    expect(r.status).toBe(401);
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.test');
  });
});

describe('svc-auth/hono: its middleware never rejects (issue 18, item 1)', () => {
  it('a route throwing a non-Error (which Hono does not hand to onError) is a bare 500 answered by svcAuth, reported to onError', async () => {
    const seen: unknown[] = [];
    const app = new Hono<PrincipalEnv>();
    app.use(svcAuth(w.auth, { onError: (err) => seen.push(err) }));
    app.get('/string', () => {
      throw `db password ${w.reader}`;
    });
    app.get('/guarded', requirePermission('repo:read', { resource: () => 'acme/web' }), () => {
      throw undefined;
    });
    app.onError(onError());
    for (const path of ['/string', '/guarded']) {
      const r = await get(app, path, w.alice);
      expect(r.status).toBe(500);
      const text = await r.text();
      expect(JSON.parse(text)).toEqual({ error: 'internal', message: 'internal error' });
      expect(text).not.toContain(w.reader);
    }
    expect(seen).toHaveLength(2);
  });

  it('an onError whose error has a throwing getResponse getter still answers a bare 500', async () => {
    const app = new Hono();
    app.get('/', () => {
      const err = new Error('x');
      Object.defineProperty(err, 'getResponse', {
        get() {
          throw new Error('getter');
        },
      });
      throw err;
    });
    app.onError(onError());
    const r = await get(app, '/');
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ error: 'internal', message: 'internal error' });
  });
});

describe('svc-auth/hono: validation issues over HTTP (issue 18, item 11)', () => {
  it('a ValidationError a route throws answers issues shaped like ValidationError.issues: code, path array, pathText, message', async () => {
    const app = new Hono<PrincipalEnv>();
    app.use(svcAuth(w.auth));
    app.post('/tokens', async (c) => c.json(await w.auth.client(c.var.principal).token.create({ name: 'no spaces allowed' })));
    app.onError(onError());
    const r = await app.request(
      new Request('http://127.0.0.1/tokens', { method: 'POST', headers: { authorization: `Bearer ${w.alice}` } }),
    );
    expect(r.status).toBe(400);
    const body = (await r.json()) as { issues: unknown[] };
    expect(body.issues[0]).toEqual({ code: expect.any(String), path: ['name'], pathText: 'name', message: expect.any(String) });
  });
});
