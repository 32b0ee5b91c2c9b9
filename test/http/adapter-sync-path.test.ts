/**
 * The Fastify and Hono adapters answer a hot token in the request's own turn: Fastify's hooks call
 * `done` (no promise for Fastify to await), Hono's middleware are not `async` (no promise of their
 * own). That fast path must answer exactly as the waiting one does. Each app is served twice over real
 * loopback HTTP, once over an `Auth` whose store answers at once and once over the same records behind
 * a store whose every read is a promise, and any request (credential, permission, what the route does)
 * gets the same status, body and headers from both.
 */
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import fc from 'fast-check';
import Fastify, { type FastifyRequest } from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Auth } from 'svc-auth';
import * as forFastify from 'svc-auth/fastify';
import * as forHono from 'svc-auth/hono';
import { MemoryTokenStore } from '../../src/stores';
import { closeServer, listening } from '../support/adapters';
import { testAuth } from '../support/auth';
import { Clock } from '../support/clock';
import { waitingStore } from '../support/token-stores';

/** What a route does once admitted: answer, throw an Error, throw a string, reject with a non-Error. */
const BEHAVIOURS = ['ok', 'throw', 'throw-string', 'reject-string'] as const;
type Behaviour = (typeof BEHAVIOURS)[number];

function act(behaviour: string, user: string | undefined): Promise<{ user: string | undefined }> | { user: string | undefined } {
  switch (behaviour) {
    case 'throw':
      throw new Error(`db password for ${user}`);
    case 'throw-string':
      throw 'a string';
    case 'reject-string':
      return Promise.reject('a string');
    default:
      return { user };
  }
}

type Served = { port: number; stop: () => Promise<void> };
type Serve = (auth: Auth) => Promise<Served>;

/** `/r/:org/:repo/read` and `…/write`: svcAuth, then requirePermission of `repo:read` or `repo:write` on org/repo, then the route. */
const APPS: [string, Serve][] = [
  [
    'Fastify',
    async (auth) => {
      const app = Fastify();
      await app.register(forFastify.svcAuth, { auth });
      app.setErrorHandler(forFastify.errorHandler());
      type Route = { Params: { org: string; repo: string } };
      for (const permission of ['repo:read', 'repo:write'] as const) {
        const check = forFastify.requirePermission<Route>(permission, { resource: (req) => `${req.params.org}/${req.params.repo}` });
        app.get<Route>(`/r/:org/:repo/${permission.slice(5)}`, { preHandler: check }, async (req: FastifyRequest<Route>) =>
          act(String(req.headers['x-behave']), req.principal.userId),
        );
      }
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { port: (app.server.address() as AddressInfo).port, stop: () => app.close() };
    },
  ],
  [
    'Hono',
    async (auth) => {
      const app = new Hono<forHono.PrincipalEnv>();
      app.use(forHono.svcAuth(auth));
      app.onError(forHono.onError());
      for (const permission of ['repo:read', 'repo:write'] as const) {
        const check = forHono.requirePermission(permission, { resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}` });
        app.get(`/r/:org/:repo/${permission.slice(5)}`, check, async (c) =>
          c.json(await act(c.req.header('x-behave') ?? '', c.var.principal.userId)),
        );
      }
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
      return { port: await listening(server), stop: () => closeServer(server) };
    },
  ],
];

interface Answer {
  status: number;
  body: string;
  expiry: boolean;
  challenge: string | undefined;
}

function send(port: number, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        const challenge = res.headers['www-authenticate'];
        resolve({ status: res.statusCode ?? 0, body, expiry: res.headers['svc-token-expiration'] !== undefined, challenge });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(APPS)('%s: a hot token answered at once answers as one that waited', (_name, serveApp) => {
  const credentials: string[] = [];
  const running: Served[] = [];
  let fast: Served;
  let slow: Served;

  beforeAll(async () => {
    const clock = new Clock();
    const store = new MemoryTokenStore();
    const roles = { alice: { orgs: { acme: 'owner' as const } }, bob: { orgs: { acme: 'viewer' as const } } };
    const sync = await testAuth({ clock, tokens: store, roles });
    const waiting = await testAuth({ clock, tokens: waitingStore(store), keys: sync.keys, roles });
    const alice = sync.auth.client(await sync.auth.authenticate(await sync.auth.issueSession('alice')));
    const read = (await alice.token.create({ name: 'read', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;
    const wide = (await alice.token.create({ name: 'wide' })).token;
    const gone = (await alice.token.create({ name: 'gone' })).token;
    await alice.token.revoke('gone');
    const bob = await sync.auth.issueSession('bob');
    credentials.push('', `Bearer ${read}`, `Bearer ${wide}`, `Bearer ${gone}`, `Bearer ${bob}`, `Bearer ${read}x`, 'Basic YWxpY2U6cHc=');
    [fast, slow] = await Promise.all([serveApp(sync.auth), serveApp(waiting.auth)]);
    running.push(fast, slow);
  });
  afterAll(async () => {
    for (const r of running) await r.stop();
  });

  it('invariant: the same status, body and headers for any credential, permission and route behaviour (fast-check)', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 6 }),
        fc.constantFrom('repo:read', 'repo:write'),
        fc.constantFrom('acme/web', 'acme/api', 'other/site'),
        fc.constantFrom(...BEHAVIOURS),
        async (i, permission, repo, behave: Behaviour) => {
          const credential = credentials[i] as string;
          const headers: Record<string, string> = { 'x-behave': behave, ...(credential === '' ? {} : { authorization: credential }) };
          const path = `/r/${repo}/${permission.slice(5)}`;
          const [a, b] = await Promise.all([send(fast.port, path, headers), send(slow.port, path, headers)]);
          expect(a).toEqual(b);
          seen.add(a.status);
        },
      ),
      { numRuns: 150 },
    );
    // The property met every kind of answer: allowed, refused (401 and 403) and failed routes.
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 401, 403, 500]));
  });

  it('a token that may read gets the route, with the expiry header; one that may not gets 403 from both', async () => {
    const read = { authorization: credentials[1] as string, 'x-behave': 'ok' };
    for (const port of [fast.port, slow.port]) {
      const ok = await send(port, '/r/acme/web/read', read);
      expect(ok).toMatchObject({ status: 200, expiry: true });
      expect(JSON.parse(ok.body)).toEqual({ user: 'alice' });
      expect((await send(port, '/r/acme/web/write', read)).status).toBe(403);
    }
  });
});

describe('Fastify: requirePermission is a hook that calls done in this turn', () => {
  it('returns no promise, calls done once when allowed, and never when it answered', async () => {
    const { auth } = await testAuth();
    const token = await auth.issueSession('alice');
    const app = Fastify();
    await app.register(forFastify.svcAuth, { auth });
    const check = forFastify.requirePermission('repo:read', { resource: () => 'acme/web' });
    const deny = forFastify.requirePermission('repo:read', { resource: () => 'other/site' });
    const calls: { returned: unknown; done: number }[] = [];
    for (const [path, hook] of [
      ['/allowed', check],
      ['/denied', deny],
    ] as const) {
      app.get(
        path,
        {
          preHandler: (req, reply, done) => {
            const call = { returned: undefined as unknown, done: 0 };
            calls.push(call);
            call.returned = hook(req, reply, (err?: Error) => {
              call.done++;
              done(err);
            });
          },
        },
        async () => ({ ok: true }),
      );
    }
    await app.ready();
    const allowed = await app.inject({ url: '/allowed', headers: { authorization: `Bearer ${token}` } });
    const denied = await app.inject({ url: '/denied', headers: { authorization: `Bearer ${token}` } });
    await app.close();
    expect([allowed.statusCode, denied.statusCode]).toEqual([200, 403]);
    expect(calls).toEqual([
      { returned: undefined, done: 1 },
      { returned: undefined, done: 0 },
    ]);
  });
});
