import type { Server } from 'node:http';
import express5 from 'express';
// Express 4 is installed under the alias `express4`.
import express4 from 'express4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, ValidationError } from 'svc-auth';
import { errorHandler, requirePermission, svcAuth } from 'svc-auth/express';
import { call, close, makeWorld, type World } from '../examples/world';

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});

type Factory = typeof express5;
const versions: [string, Factory][] = [
  ['Express 5', express5],
  ['Express 4', express4 as unknown as Factory],
];

describe.each(versions)('svc-auth/express on %s', (_name, express) => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    const app = express();
    // A CORS header set before the guard must survive a 401/403.
    app.use((_req, res, next) => {
      res.setHeader('access-control-allow-origin', 'https://app.test');
      next();
    });
    app.get('/open', svcAuth(w.auth, { optional: true, realm: 'acme' }), (req, res) => {
      res.json({ user: req.principal === null ? null : req.principal?.userId });
    });
    app.get(
      '/open/repos/:org/:repo',
      svcAuth(w.auth, { optional: true }),
      requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }),
      (_req, res) => {
        res.json({ ok: true });
      },
    );
    app.get('/quiet', svcAuth(w.auth, { expirationHeader: false }), (_req, res) => {
      res.json({ ok: true });
    });
    app.get(
      '/unguarded/:org/:repo',
      requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }),
      (_req, res) => {
        res.json({ ok: true });
      },
    );
    app.get('/sync-throw', svcAuth(w.auth), () => {
      throw new (class extends Error {})('not ours');
    });
    app.get('/revoke/:name', svcAuth(w.auth), (req, res, next) => {
      // Express 4 does not catch async rejections: pass them to next as its docs say.
      w.auth
        .client(req.principal!)
        .token.revoke(String(req.params.name))
        .then((info) => res.json({ revoked: info.name }), next);
    });
    app.get('/cookie', svcAuth(w.auth), (_req, res) => {
      res.cookie('session', 'abc', { httpOnly: true });
      res.setHeader('cache-control', 'public, max-age=600');
      throw new ForbiddenError('not you');
    });
    app.post('/tokens', svcAuth(w.auth), (req, res, next) => {
      w.auth
        .client(req.principal)
        .token.create({ name: 'no spaces allowed' })
        .then((made) => res.json(made.info), next);
    });
    app.use(errorHandler());
    app.use((_err: unknown, _req: express5.Request, res: express5.Response, _next: express5.NextFunction) => {
      res.status(599).json({ handledBy: 'next error handler' });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => close(server));

  it('optional: no credential goes on with req.principal null', async () => {
    const r = await call(url, 'GET', '/open');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ user: null });
  });

  it('optional: a bad credential is still a 401 with the configured realm, CORS header kept', async () => {
    const r = await call(url, 'GET', '/open', 'Bearer garbage');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="acme", error="invalid_token"/);
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.test');
  });

  it('optional: requirePermission with no principal is a 401', async () => {
    const r = await call(url, 'GET', '/open/repos/acme/web');
    expect(r.status).toBe(401);
    expect((await call(url, 'GET', '/open/repos/acme/web', w.reader)).status).toBe(200);
  });

  it('expirationHeader: false sets no Svc-Token-Expiration', async () => {
    const r = await call(url, 'GET', '/quiet', w.reader);
    expect(r.status).toBe(200);
    expect(r.headers.get('svc-token-expiration')).toBeNull();
  });

  it('fails closed: requirePermission without svcAuth never allows (misconfiguration goes to the error handlers)', async () => {
    const r = await call(url, 'GET', '/unguarded/acme/web', w.reader);
    expect(r.status).toBe(599);
  });

  it('a route that sets a cookie then throws ForbiddenError answers 403 without it; CORS and the expiry stay (issue 18, item 10: the same on every adapter)', async () => {
    const r = await call(url, 'GET', '/cookie', w.alice);
    expect(r.status).toBe(403);
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.test');
    expect(r.headers.get('svc-token-expiration')).toMatch(/Z$/);
  });

  it('a ValidationError answers issues shaped like ValidationError.issues: code, path array, pathText, message (issue 18, item 11)', async () => {
    const r = await call(url, 'POST', '/tokens', w.alice);
    expect(r.status).toBe(400);
    const body = (await r.json()) as { issues: unknown[] };
    expect(body.issues[0]).toEqual({ code: expect.any(String), path: ['name'], pathText: 'name', message: expect.any(String) });
  });

  it('errorHandler answers a SvcAuthError per H2 and passes any other error on', async () => {
    const r = await call(url, 'GET', '/revoke/no-such-name', w.alice);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await call(url, 'GET', '/sync-throw', w.alice)).status).toBe(599);
  });
});

describe('svc-auth/express options are checked when built', () => {
  it('unknown options, bad realm, bad permission and a missing resource are ValidationErrors', () => {
    // @ts-expect-error not an option
    expect(() => svcAuth(w.auth, { realms: 'x' })).toThrow(ValidationError);
    expect(() => svcAuth(w.auth, { realm: 'a\r\nb' })).toThrow(ValidationError);
    // @ts-expect-error 'repo:reed' is not a Permission
    expect(() => requirePermission('repo:reed', { resource: () => 'acme/web' })).toThrow(ValidationError);
    // @ts-expect-error resource is required
    expect(() => requirePermission('repo:read', {})).toThrow(ValidationError);
    expect(() => errorHandler({ realm: '' })).toThrow(ValidationError);
  });
});
