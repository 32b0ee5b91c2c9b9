// Hono: svcAuth sets c.var.principal, requirePermission reads c.req.param(), onError answers per H2.
import { Hono } from 'hono';
import type { Auth } from 'svc-auth';
import { onError, requirePermission, svcAuth, type PrincipalEnv } from 'svc-auth/hono';

export function createApp(auth: Auth): Hono<PrincipalEnv> {
  const api = new Hono<PrincipalEnv>();

  api.get(
    '/repos/:org/:repo/head',
    requirePermission('repo:read', { resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}` }),
    (c) => c.json({ org: c.req.param('org'), repo: c.req.param('repo'), user: c.var.principal.userId }),
  );

  api.put(
    '/repos/:org/:repo/things/:type/:name',
    requirePermission('repo:write', {
      resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}`,
      thing: (c) => `${c.req.param('type')}/${c.req.param('name')}`,
    }),
    (c) => c.json({ written: `${c.req.param('type')}/${c.req.param('name')}` }),
  );

  api.post('/tokens/:name', async (c) => {
    const created = await auth.client(c.var.principal).token.create({ name: c.req.param('name') });
    return c.json({ name: created.info.name }, 201);
  });
  api.delete('/tokens/:name', async (c) => {
    const info = await auth.client(c.var.principal).token.revoke(c.req.param('name'));
    return c.json({ revoked: info.name });
  });

  const app = new Hono<PrincipalEnv>();
  app.use(svcAuth(auth));
  app.route('/api', api);
  app.onError(onError());
  return app;
}
