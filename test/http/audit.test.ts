/**
 * Issue 11 through the HTTP edge: every guard and adapter reports a denied
 * decision as an `access.denied` audit event (one place: the gate's refuse),
 * and a refusal before authorization (no credential, bad token) is not one.
 */
import { createServer, type Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAuth, type AuthEvent } from 'svc-auth';
import { requirePermission, svcAuth } from 'svc-auth/express';
import { call, close, listen } from '../contract/examples/world';
import { testAuth } from '../support/auth';

const events: AuthEvent[] = [];
let node: Server;
let app: Server;
let nodeUrl = '';
let appUrl = '';
let reader = '';

/** Events are delivered off the request path: wait until `n` denials have arrived (bounded). */
async function denials(n: number): Promise<AuthEvent[]> {
  for (let i = 0; i < 200; i++) {
    const got = events.filter((e) => e.type === 'access.denied');
    if (got.length >= n) return got;
    await new Promise((r) => setTimeout(r, 5));
  }
  return events.filter((e) => e.type === 'access.denied');
}

beforeAll(async () => {
  const { auth } = await testAuth({ everyone: { orgs: { acme: 'editor' } }, onEvent: (e) => void events.push(e) });
  const session = await auth.issueSession('alice');
  const client = auth.client(await auth.authenticate(session));
  reader = (await client.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;

  const guard = requireAuth(auth, { permission: 'repo:write', resource: () => 'acme/web' });
  node = createServer((req, res) => void guard(req, res, () => res.end('ok')));
  nodeUrl = await listen(node);

  const e = express();
  e.use(svcAuth(auth));
  e.put(
    '/repos/:org/:repo',
    requirePermission('repo:write', { resource: (req) => `${req.params.org}/${req.params.repo}` }),
    (_req, res) => {
      res.json({ ok: true });
    },
  );
  app = e.listen(0, '127.0.0.1');
  await new Promise((r) => app.once('listening', r));
  appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
});

afterAll(async () => {
  await close(node);
  await close(app);
});

describe('access.denied from the guards and adapters', () => {
  it('requireAuth and the Express adapter each report a scope denial with the actor, resource and permission', async () => {
    expect((await call(nodeUrl, 'GET', '/', reader)).status).toBe(403);
    expect((await call(appUrl, 'PUT', '/repos/acme/web', reader)).status).toBe(403);
    const got = await denials(2);
    expect(got).toHaveLength(2);
    for (const e of got) {
      expect(e).toMatchObject({ type: 'access.denied', resource: 'acme/web', permission: 'repo:write', reason: 'scope' });
      expect(e.actor).toMatchObject({ kind: 'pat', userId: 'alice', tokenName: 'reader' });
      expect(JSON.stringify(e)).not.toContain(reader);
    }
  });

  it('a missing or garbage credential is no access.denied (it is an auth.failed)', async () => {
    const before = (await denials(0)).length;
    expect((await call(nodeUrl, 'GET', '/')).status).toBe(401);
    expect((await call(appUrl, 'PUT', '/repos/acme/web', 'garbage')).status).toBe(401);
    await new Promise((r) => setTimeout(r, 50));
    expect((await denials(0)).length).toBe(before);
    expect(events.some((e) => e.type === 'auth.failed')).toBe(true);
  });
});
