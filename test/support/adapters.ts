/**
 * The framework adapters served over real loopback HTTP, each a `/whoami`
 * route behind the adapter's guard, and a GET sent from a chosen loopback
 * address: what the client address tests of every adapter share.
 */
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { requireAuth, withAuth, principalOf, type Auth } from 'svc-auth';
import { svcAuth as expressAuth } from 'svc-auth/express';
import { svcAuth as fastifyAuth } from 'svc-auth/fastify';
import { svcAuth as honoAuth, type PrincipalEnv } from 'svc-auth/hono';

export interface Answer {
  status: number;
  body: { user?: string; error?: string; reason?: string };
}

/** GET `path` on `port` from the local address `from`, with a bearer token and extra headers. */
export function get(port: number, from: string, token: string, headers: Record<string, string> = {}): Promise<Answer> {
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

export function listening(server: Server): Promise<number> {
  return new Promise((resolve) => {
    if (server.listening) resolve((server.address() as AddressInfo).port);
    else server.once('listening', () => resolve((server.address() as AddressInfo).port));
  });
}

export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export type Serve = (auth: Auth) => Promise<{ port: number; stop: () => Promise<void> }>;

export const adapters: [string, Serve][] = [
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
