/**
 * Type test of svc-auth/hono as docs/frameworks.md presents it (issue 18, item 11): `c.var.principal`
 * is a Principal under `svcAuth(auth)` and `Principal | null` under `svcAuth(auth, { optional: true })`.
 * Compiled, never run: by `npm run typecheck` and by test/http/adapter-types.test.ts.
 */
import { Hono } from 'hono';
import { expectTypeOf } from 'vitest';
import type { Auth, Principal } from 'svc-auth';
import { requirePermission, svcAuth, type OptionalPrincipalEnv, type PrincipalEnv } from 'svc-auth/hono';

declare const auth: Auth;

const app = new Hono<PrincipalEnv>();
app.use(svcAuth(auth));
app.get('/repos/:org/:repo', requirePermission('repo:read', { resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}` }), (c) => {
  expectTypeOf(c.var.principal).toEqualTypeOf<Principal>();
  return c.json({ user: c.var.principal.userId });
});

const open = new Hono<OptionalPrincipalEnv>();
open.use(svcAuth(auth, { optional: true }));
open.get('/', (c) => {
  expectTypeOf(c.var.principal).toEqualTypeOf<Principal | null>();
  // @ts-expect-error the principal may be null under optional: true
  return c.json({ user: c.var.principal.userId });
});

export { app, open };
