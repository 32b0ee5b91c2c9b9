// Express 5 (or 4): svcAuth on the app, requirePermission per route, errorHandler last.
import express from 'express';
import { principalOf, type Auth } from 'svc-auth';
import { errorHandler, requirePermission, svcAuth } from 'svc-auth/express';

export function createApp(auth: Auth): express.Express {
  const api = express.Router();

  // The resource comes from route parameters: under app.use('/api', api) Express
  // rewrites req.url to '/repos/...', so never parse req.url for it.
  api.get(
    '/repos/:org/:repo/head',
    requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }),
    (req, res) => {
      res.json({ org: req.params.org, repo: req.params.repo, user: principalOf(req).userId });
    },
  );

  api.put(
    '/repos/:org/:repo/things/:type/:name',
    requirePermission('repo:write', {
      resource: (req) => `${req.params.org}/${req.params.repo}`,
      thing: (req) => `${req.params.type}/${req.params.name}`,
    }),
    (req, res) => {
      res.json({ written: `${req.params.type}/${req.params.name}` });
    },
  );

  // Any SvcAuthError an async route throws (NotFoundError, ConflictError, ...)
  // reaches errorHandler() and is answered as JSON per H2.
  api.post('/tokens/:name', async (req, res) => {
    const created = await auth.client(principalOf(req)).token.create({ name: req.params.name });
    res.status(201).json({ name: created.info.name });
  });
  api.delete('/tokens/:name', async (req, res) => {
    const info = await auth.client(principalOf(req)).token.revoke(req.params.name);
    res.json({ revoked: info.name });
  });

  const app = express();
  app.use(svcAuth(auth));
  app.use('/api', api);
  app.use(errorHandler());
  return app;
}
