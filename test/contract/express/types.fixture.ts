/**
 * Type test of svc-auth/express as docs/frameworks.md presents it (issue 18, item 11). Compiled, never
 * run: by `npm run typecheck` and by test/http/adapter-types.test.ts, where a second program checks the
 * `optional: true` switch (a module augmentation, so it cannot live in this program).
 */
import express from 'express';
import { expectTypeOf } from 'vitest';
import type { Auth, Principal } from 'svc-auth';
import { requirePermission, svcAuth, type RequestPrincipal } from 'svc-auth/express';

declare const auth: Auth;
const app = express();
app.use(svcAuth(auth));

app.get('/whoami', (req, res) => {
  // req.principal is the principal (was: Principal | null | undefined).
  expectTypeOf(req.principal).toEqualTypeOf<Principal>();
  res.json({ user: req.principal.userId });
});

app.get('/repos/:org/:repo', requirePermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }), (req, res) => {
  res.json({ org: req.params.org, user: req.principal.userId });
});

expectTypeOf<RequestPrincipal>().toEqualTypeOf<Principal>();
// @ts-expect-error 'repo:reed' is not a permission
requirePermission('repo:reed', { resource: () => 'acme/web' });
// @ts-expect-error a principal is not assignable from null without the optional switch
const none: RequestPrincipal = null;
export { none };
