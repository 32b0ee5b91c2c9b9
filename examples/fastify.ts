// Fastify 5: register the plugin, one preHandler per route, errorHandler for every error.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Auth } from 'svc-auth';
import { errorHandler, requirePermission, svcAuth } from 'svc-auth/fastify';

type Repo = { Params: { org: string; repo: string } };
type Thing = { Params: { org: string; repo: string; type: string; name: string } };
type Named = { Params: { name: string } };

export async function createApp(auth: Auth): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(svcAuth, { auth });
  app.setErrorHandler(errorHandler());

  await app.register(
    async (api) => {
      // resource and thing read request.params, typed by the route's generic.
      api.get<Repo>(
        '/repos/:org/:repo/head',
        { preHandler: requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }) },
        async (req) => ({ org: req.params.org, repo: req.params.repo, user: req.principal.userId }),
      );

      api.put<Thing>(
        '/repos/:org/:repo/things/:type/:name',
        {
          preHandler: requirePermission('repo:write', {
            resource: (req) => `${req.params.org}/${req.params.repo}`,
            thing: (req) => `${req.params.type}/${req.params.name}`,
          }),
        },
        async (req) => ({ written: `${req.params.type}/${req.params.name}` }),
      );

      // Any SvcAuthError a route throws (NotFoundError, ConflictError, ...) reaches
      // errorHandler() and is answered per H2; any other error is a bare 500.
      api.post<Named>('/tokens/:name', async (req, reply) => {
        const created = await auth.client(req.principal).token.create({ name: req.params.name });
        return reply.code(201).send({ name: created.info.name });
      });
      api.delete<Named>('/tokens/:name', async (req) => {
        const info = await auth.client(req.principal).token.revoke(req.params.name);
        return { revoked: info.name };
      });
    },
    { prefix: '/api' },
  );
  return app;
}
