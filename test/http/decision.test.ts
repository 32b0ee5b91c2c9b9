/**
 * `onDecision` on every guard: what it hears for an allow, a denial and a
 * refused credential, through real node:http, fetch, Express, Hono and
 * Fastify; a hook that throws or rejects changes no answer and crashes
 * nothing; a hook that is not a function fails when the guard is built.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, ValidationError, requireAuth, withAuth, type Auth, type GuardOptions } from 'svc-auth';
import * as expressAdapter from 'svc-auth/express';
import * as fastifyAdapter from 'svc-auth/fastify';
import * as honoAdapter from 'svc-auth/hono';
import { call, close, listen, makeWorld, type World } from '../contract/examples/world';
import { caught } from '../support/errors';

type Heard = { allowed: boolean; status?: number; reason?: string; user?: string; permission?: string; resource?: string };

/** What a guard tells onDecision (the type of its first argument). */
type Decided = Parameters<NonNullable<GuardOptions['onDecision']>>[0];

/** What a decision says, in a form a test can compare. */
function heard(d: Decided): Heard {
  const out: Heard = { allowed: d.allowed };
  if (d.status !== undefined) out.status = d.status;
  if (d.principal !== null) out.user = d.principal.userId;
  if (d.permission !== undefined) out.permission = d.permission;
  if (d.resource !== undefined) out.resource = d.resource;
  if (d.decision?.allowed === false) out.reason = d.decision.reason;
  else if (d.error instanceof AuthenticationError) out.reason = d.error.reason;
  return out;
}

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});

const WRITE = { permission: 'repo:write', resource: () => 'acme/web' } as const;

describe('requireAuth on node:http tells onDecision what it decided, once per request', () => {
  let server: Server;
  let url = '';
  const log: { d: Heard; path: string | undefined }[] = [];
  beforeAll(async () => {
    const guard = requireAuth(w.auth, { ...WRITE, onDecision: (d, req: IncomingMessage) => void log.push({ d: heard(d), path: req.url }) });
    server = createServer((req, res) => void guard(req, res, () => res.end('ok')));
    url = await listen(server);
  });
  afterAll(async () => close(server));

  it('an allowed write: the principal, what was asked and the decision, with the request', async () => {
    log.length = 0;
    expect((await call(url, 'PUT', '/w', w.alice)).status).toBe(200);
    expect(log).toEqual([{ d: { allowed: true, user: 'alice', permission: 'repo:write', resource: 'acme/web' }, path: '/w' }]);
  });

  it('a scope denial: the reason and the 403 the guard answers', async () => {
    log.length = 0;
    expect((await call(url, 'PUT', '/w', w.reader)).status).toBe(403);
    expect(log.map((e) => e.d)).toEqual([
      { allowed: false, status: 403, user: 'alice', permission: 'repo:write', resource: 'acme/web', reason: 'scope' },
    ]);
  });

  it('a revoked and a missing credential: no principal, the authentication reason and the 401', async () => {
    log.length = 0;
    expect((await call(url, 'PUT', '/w', w.revoked)).status).toBe(401);
    expect((await call(url, 'PUT', '/w')).status).toBe(401);
    expect(log.map((e) => e.d)).toEqual([
      { allowed: false, status: 401, reason: 'revoked' },
      { allowed: false, status: 401, reason: 'missing' },
    ]);
  });
});

describe('a hostile onDecision changes no answer and crashes nothing', () => {
  const hooks = {
    throwing: () => {
      throw new Error('audit sink down');
    },
    rejecting: () => Promise.reject(new Error('audit sink down')),
  };
  for (const [kind, onDecision] of Object.entries(hooks)) {
    it(`a ${kind} onDecision: a denial stays 403, an allow stays 200, a missing credential stays 401 (node and fetch)`, async () => {
      const guard = requireAuth(w.auth, { ...WRITE, onDecision });
      const server = createServer((req, res) => void guard(req, res, () => res.end('ok')));
      const url = await listen(server);
      try {
        expect((await call(url, 'PUT', '/', w.reader)).status).toBe(403);
        expect((await call(url, 'PUT', '/', w.alice)).status).toBe(200);
        expect((await call(url, 'PUT', '/')).status).toBe(401);
      } finally {
        await close(server);
      }
      const handler = withAuth(w.auth, () => new Response('ok'), { ...WRITE, onDecision });
      const req = (token?: string): Request =>
        new Request('http://svc.test/', { method: 'PUT', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
      expect((await handler(req(w.reader))).status).toBe(403);
      expect((await handler(req(w.alice))).status).toBe(200);
      expect((await handler(req())).status).toBe(401);
      // A rejection left unhandled would fail this file (vitest reports it); give it a turn to surface.
      await new Promise((r) => setImmediate(r));
    });
  }
});

describe('withAuth (fetch) tells onDecision the same, with its Request', () => {
  it('an allow and a thing denial', async () => {
    const log: { d: Heard; url: string }[] = [];
    const handler = withAuth(w.auth, () => new Response('ok'), {
      permission: 'repo:write',
      resource: () => 'acme/web',
      thing: (req) => new URL(req.url).pathname.slice(1),
      onDecision: (d, req) => void log.push({ d: heard(d), url: req.url }),
    });
    const put = (path: string): Request =>
      new Request(`http://svc.test${path}`, { method: 'PUT', headers: { authorization: `Bearer ${w.docs}` } });
    expect((await handler(put('/Doc/a'))).status).toBe(200);
    expect((await handler(put('/Img/a'))).status).toBe(403);
    expect(log).toEqual([
      { d: { allowed: true, user: 'alice', permission: 'repo:write', resource: 'acme/web' }, url: 'http://svc.test/Doc/a' },
      {
        d: { allowed: false, status: 403, user: 'alice', permission: 'repo:write', resource: 'acme/web', reason: 'thing' },
        url: 'http://svc.test/Img/a',
      },
    ]);
  });
});

describe('the adapters pass onDecision through: admission, then each requirePermission', () => {
  it('Express: svcAuth hears the admission and the permission decision of requirePermission', async () => {
    const log: Heard[] = [];
    const app = express();
    app.use(expressAdapter.svcAuth(w.auth, { onDecision: (d) => void log.push(heard(d)) }));
    app.put(
      '/repos/:org/:repo',
      expressAdapter.requirePermission('repo:write', { resource: (req) => `${req.params.org}/${req.params.repo}` }),
      (_req, res) => {
        res.json({ ok: true });
      },
    );
    const server = createServer(app);
    const url = await listen(server);
    try {
      expect((await call(url, 'PUT', '/repos/acme/web', w.reader)).status).toBe(403);
      expect((await call(url, 'PUT', '/repos/acme/web', w.alice)).status).toBe(200);
    } finally {
      await close(server);
    }
    expect(log).toEqual([
      { allowed: true, user: 'alice' },
      { allowed: false, status: 403, user: 'alice', permission: 'repo:write', resource: 'acme/web', reason: 'scope' },
      { allowed: true, user: 'alice' },
      { allowed: true, user: 'alice', permission: 'repo:write', resource: 'acme/web' },
    ]);
  });

  it('Hono: the same, with the Context as the request', async () => {
    const log: { d: Heard; path: string }[] = [];
    const app = new Hono<honoAdapter.PrincipalEnv>();
    app.use('*', honoAdapter.svcAuth(w.auth, { onDecision: (d, c) => void log.push({ d: heard(d), path: c.req.path }) }));
    app.put(
      '/repos/:org/:repo',
      honoAdapter.requirePermission('repo:write', { resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}` }),
      (c) => c.json({ ok: true }),
    );
    const put = (token: string): Promise<Response> =>
      Promise.resolve(app.request('/repos/acme/web', { method: 'PUT', headers: { authorization: `Bearer ${token}` } }));
    expect((await put(w.reader)).status).toBe(403);
    expect((await put(w.revoked)).status).toBe(401);
    expect(log).toEqual([
      { d: { allowed: true, user: 'alice' }, path: '/repos/acme/web' },
      {
        d: { allowed: false, status: 403, user: 'alice', permission: 'repo:write', resource: 'acme/web', reason: 'scope' },
        path: '/repos/acme/web',
      },
      { d: { allowed: false, status: 401, reason: 'revoked' }, path: '/repos/acme/web' },
    ]);
  });

  it('Fastify: the plugin option hears the same', async () => {
    const log: Heard[] = [];
    const app = Fastify();
    await app.register(fastifyAdapter.svcAuth, { auth: w.auth, onDecision: (d) => void log.push(heard(d)) });
    app.put<{ Params: { org: string; repo: string } }>(
      '/repos/:org/:repo',
      { preHandler: fastifyAdapter.requirePermission('repo:write', { resource: (req) => `${req.params.org}/${req.params.repo}` }) },
      async () => ({ ok: true }),
    );
    try {
      const put = (token: string) => app.inject({ method: 'PUT', url: '/repos/acme/web', headers: { authorization: `Bearer ${token}` } });
      expect((await put(w.bob)).statusCode).toBe(403);
    } finally {
      await app.close();
    }
    expect(log).toEqual([
      { allowed: true, user: 'bob' },
      { allowed: false, status: 403, user: 'bob', permission: 'repo:write', resource: 'acme/web', reason: 'role' },
    ]);
  });
});

describe('an onDecision that is not a function fails when the guard is built', () => {
  const bad = { onDecision: 'log' } as unknown as { onDecision: () => void };
  it('requireAuth, withAuth and the Express, Hono and Fastify svcAuth each throw a ValidationError naming it', async () => {
    const builds: [string, () => unknown][] = [
      ['requireAuth', () => requireAuth(w.auth, bad)],
      ['withAuth', () => withAuth(w.auth, () => new Response(), bad)],
      ['express', () => expressAdapter.svcAuth(w.auth, bad)],
      ['hono', () => honoAdapter.svcAuth(w.auth, bad)],
    ];
    for (const [name, build] of builds) {
      const err = caught(build);
      expect(err, name).toBeInstanceOf(ValidationError);
      expect(
        (err as ValidationError).issues.map((i) => i.path),
        name,
      ).toEqual([['options', 'onDecision']]);
    }
    const app = Fastify();
    await expect(app.register(fastifyAdapter.svcAuth, { auth: w.auth as Auth, ...bad }).ready()).rejects.toBeInstanceOf(ValidationError);
    await app.close();
  });
});
