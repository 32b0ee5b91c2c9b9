/**
 * Type test of svc-auth/fastify as docs/frameworks.md presents it (issue 18, item 11). Compiled, never
 * run: by `npm run typecheck` and by test/http/adapter-types.test.ts, where a second program checks the
 * `optional: true` switch (a module augmentation, so it cannot live in this program).
 */
import Fastify, { type FastifyRequest } from 'fastify';
import { expectTypeOf } from 'vitest';
import { principalOf, type Auth, type Principal } from 'svc-auth';
import { requirePermission, svcAuth, type RequestPrincipal } from 'svc-auth/fastify';

declare const auth: Auth;

export async function build(): Promise<void> {
  const app = Fastify();
  await app.register(svcAuth, { auth });

  app.get('/whoami', async (req) => {
    // request.principal is the principal without `optional` (was: Principal | null).
    expectTypeOf(req.principal).toEqualTypeOf<Principal>();
    // principalOf(request.raw) type-checks and, since this issue, works.
    expectTypeOf(principalOf(req.raw)).toEqualTypeOf<Principal>();
    return { user: req.principal.userId };
  });

  // The route's Params reach resource and thing without an annotation (was: FastifyRequest with unknown params).
  app.get<{ Params: { org: string; repo: string; type: string; name: string } }>(
    '/repos/:org/:repo/things/:type/:name',
    {
      preHandler: requirePermission('repo:read', {
        resource: (req) => {
          expectTypeOf(req.params.org).toEqualTypeOf<string>();
          return `${req.params.org}/${req.params.repo}`;
        },
        thing: (req) => `${req.params.type}/${req.params.name}`,
      }),
    },
    async (req) => ({ org: req.params.org }),
  );
  app.get<{ Params: { org: string } }>(
    '/orgs/:org',
    // An array of hooks infers the same way.
    { preHandler: [requirePermission('org:read', { resource: (req) => req.params.org })] },
    async () => ({}),
  );
  app.get<{ Params: { org: string } }>(
    '/typo/:org',
    // @ts-expect-error the route has no `repo` parameter
    { preHandler: requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }) },
    async () => ({}),
  );
  // An annotated callback keeps working.
  app.get<{ Params: { org: string } }>(
    '/annotated/:org',
    { preHandler: requirePermission('org:read', { resource: (req: FastifyRequest<{ Params: { org: string } }>) => req.params.org }) },
    async () => ({}),
  );
}

expectTypeOf<RequestPrincipal>().toEqualTypeOf<Principal>();
