/**
 * allowedIps and last-used addresses in every adapter, over real loopback
 * HTTP: clients bind to 127.0.0.2, 127.0.0.3 and 127.0.0.9 (all loopback on
 * Linux), servers listen dual-stack (so IPv4 peers arrive IPv4-mapped), and
 * 127.0.0.9 plays the trusted proxy. A limited token is 403 (reason `ip`)
 * from elsewhere, a hostile X-Forwarded-For from an untrusted peer changes
 * nothing, the client a trusted proxy names is believed, and last used shows
 * the address.
 */
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAuth,
  ForbiddenError,
  generateKeyRing,
  httpError,
  MemoryTokenStore,
  requireAuth,
  withAuth,
  principalOf,
  type Auth,
  type AuthEvent,
} from 'svc-auth';
import { svcAuth as expressAuth } from 'svc-auth/express';
import { svcAuth as fastifyAuth } from 'svc-auth/fastify';
import { svcAuth as honoAuth, type PrincipalEnv } from 'svc-auth/hono';

interface Answer {
  status: number;
  body: { user?: string; error?: string; reason?: string };
}

/** GET `path` on `port` from the local address `from`, with a bearer token and extra headers. */
function get(port: number, from: string, token: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/whoami',
        localAddress: from,
        headers: { authorization: `Bearer ${token}`, 'user-agent': `agent-${from}`, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function listening(server: Server): Promise<number> {
  return new Promise((resolve) => {
    if (server.listening) resolve((server.address() as AddressInfo).port);
    else server.once('listening', () => resolve((server.address() as AddressInfo).port));
  });
}

async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

type Serve = (auth: Auth) => Promise<{ port: number; stop: () => Promise<void> }>;

const adapters: [string, Serve][] = [
  [
    'node requireAuth',
    async (auth) => {
      const guard = requireAuth(auth);
      const { createServer } = await import('node:http');
      const server = createServer((req, res) => {
        void guard(req, res, () => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ user: principalOf(req).userId }));
        });
      }).listen(0, '::');
      return { port: await listening(server), stop: () => closeServer(server) };
    },
  ],
  [
    'fetch withAuth (served by @hono/node-server)',
    async (auth) => {
      // A fetch Request carries no address: the runtime's (here node-server's) is handed over.
      const peers = new WeakMap<Request, string | undefined>();
      const handler = withAuth(auth, (_req, p) => Response.json({ user: p.userId }), { clientAddress: (req) => peers.get(req) });
      const server = serve({
        fetch: (req: Request, env: { incoming: { socket: { remoteAddress?: string | undefined } } }) => {
          peers.set(req, env.incoming.socket.remoteAddress);
          return handler(req);
        },
        port: 0,
        hostname: '::',
      }) as Server;
      return { port: await listening(server), stop: () => closeServer(server) };
    },
  ],
  [
    'Express',
    async (auth) => {
      const app = express();
      app.get('/whoami', expressAuth(auth), (req, res) => {
        res.json({ user: req.principal.userId });
      });
      const server = app.listen(0, '::');
      return { port: await listening(server), stop: () => closeServer(server) };
    },
  ],
  [
    'Hono (@hono/node-server, its peer address by default)',
    async (auth) => {
      const app = new Hono<PrincipalEnv>();
      app.use(honoAuth(auth));
      app.get('/whoami', (c) => c.json({ user: c.var.principal.userId }));
      const server = serve({ fetch: app.fetch, port: 0, hostname: '::' }) as Server;
      return { port: await listening(server), stop: () => closeServer(server) };
    },
  ],
  [
    'Fastify',
    async (auth) => {
      const app = Fastify();
      await app.register(fastifyAuth, { auth });
      app.get('/whoami', async (request) => ({ user: request.principal.userId }));
      await app.listen({ port: 0, host: '::' });
      return { port: (app.server.address() as AddressInfo).port, stop: () => app.close() };
    },
  ],
];

describe.each(adapters)('client address in %s', (_name, start) => {
  let auth: Auth;
  const events: AuthEvent[] = [];
  let office = '';
  let plain = '';
  let server: { port: number; stop: () => Promise<void> };

  beforeAll(async () => {
    auth = createAuth({
      issuer: 'https://svc.test',
      keys: await generateKeyRing(),
      members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
      tokens: new MemoryTokenStore(),
      trustProxy: ['127.0.0.9'],
      onEvent: (e) => void events.push(e),
    });
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    office = (await api.create({ name: 'office', allowedIps: ['127.0.0.2'] })).token;
    plain = (await api.create({ name: 'plain' })).token;
    server = await start(auth);
  });

  afterAll(async () => {
    await server.stop();
  });

  it('a limited token works from its address and is 403 (reason ip) from another', async () => {
    expect(await get(server.port, '127.0.0.2', office)).toEqual({ status: 200, body: { user: 'alice' } });
    const refused = await get(server.port, '127.0.0.3', office);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden', reason: 'ip' });
  });

  it('hostile X-Forwarded-For from an untrusted peer is ignored (spoofing)', async () => {
    const spoofed = await get(server.port, '127.0.0.3', office, { 'x-forwarded-for': '127.0.0.2' });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.reason).toBe('ip');
  });

  it('through the trusted proxy the client it names is believed: the right-most untrusted hop', async () => {
    expect((await get(server.port, '127.0.0.9', office, { 'x-forwarded-for': '127.0.0.2' })).status).toBe(200);
    // The client put a lie first; the proxy appended the truth.
    expect((await get(server.port, '127.0.0.9', office, { 'x-forwarded-for': '127.0.0.2, 127.0.0.3' })).body.reason).toBe('ip');
  });

  it('last used shows the address and user agent, through the trusted proxy and not through an untrusted one', async () => {
    await get(server.port, '127.0.0.9', plain, { 'x-forwarded-for': '203.0.113.7' });
    await auth.flush();
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    expect((await api.get('plain')).lastUsed).toMatchObject({ address: '203.0.113.7', userAgent: 'agent-127.0.0.9' });
    // The next use is recorded one interval (a minute) later; a fresh token shows the untrusted case at once.
    const fresh = (await api.create({ name: `spoof${Date.now()}` })).token;
    await get(server.port, '127.0.0.3', fresh, { 'x-forwarded-for': '203.0.113.7' });
    await auth.flush();
    const [info] = (await api.list()).filter((t) => t.name.startsWith('spoof'));
    expect(info?.lastUsed).toMatchObject({ address: '127.0.0.3', userAgent: 'agent-127.0.0.3' });
    expect(events.some((e) => e.type === 'auth.failed' && e.reason === 'ip')).toBe(true);
  });
});

describe('clientAddress option and the ip answer', () => {
  it('httpError: ForbiddenError reason ip is a 403 with the reason and no insufficient_scope challenge', () => {
    const answer = httpError(new ForbiddenError('this token may not be used from here', { reason: 'ip', tokenId: 'x' }));
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: 'forbidden', message: 'this token may not be used from here', reason: 'ip' });
    expect(answer.headers['www-authenticate']).toBeUndefined();
    expect(httpError(new ForbiddenError('no')).headers['www-authenticate']).toContain('insufficient_scope');
  });

  it('a clientAddress that throws or gives nothing means an unknown address: a limited token is refused, never a crash', async () => {
    const auth = createAuth({ issuer: 'https://svc.test', keys: await generateKeyRing(), members: { rolesOf: () => ({}) } });
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    const { token } = await api.create({ name: 'office', allowedIps: ['127.0.0.2'] });
    const { token: free } = await api.create({ name: 'free' });
    const req = (t: string): Request => new Request('http://x/', { headers: { authorization: `Bearer ${t}` } });
    for (const clientAddress of [
      () => undefined,
      () => 'nonsense',
      (): string => {
        throw new Error('boom');
      },
    ]) {
      const h = withAuth(auth, () => new Response('ok'), { clientAddress });
      expect((await h(req(token))).status).toBe(403);
      expect((await h(req(free))).status).toBe(200);
    }
    expect((await withAuth(auth, () => new Response('ok'), { clientAddress: () => '127.0.0.2' })(req(token))).status).toBe(200);
    expect(() => withAuth(auth, () => new Response('ok'), { clientAddress: 'x' as never })).toThrow(/clientAddress/);
    expect(() => expressAuth(auth, { clientAddress: 1 as never })).toThrow(/clientAddress/);
  });
});
