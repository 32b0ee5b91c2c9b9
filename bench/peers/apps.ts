/**
 * The servers of the peer HTTP benchmark: in each framework, the same route
 * (`GET /api/repos/:org/:repo/head`, a small JSON answer) behind each way of
 * authenticating, mounted as the framework's users mount it (svc-auth as
 * examples/ shows; each JWT middleware as its README shows). Not a benchmark
 * itself; see bench/peers/run.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { expressjwt } from 'express-jwt';
import Fastify, { type FastifyRequest } from 'fastify';
import fastifyJwt from '@fastify/jwt';
import { Hono } from 'hono';
import { jwt as honoJwt } from 'hono/jwt';
import { serve } from '@hono/node-server';
import { requireAuth } from 'svc-auth';
import * as svcExpress from 'svc-auth/express';
import * as svcFastify from 'svc-auth/fastify';
import * as svcHono from 'svc-auth/hono';
import { ISSUER, SCOPE, hasScope, type Setup } from './credentials';
import type { Framework, Kind } from './variants';

export const PATH = '/api/repos/acme/web/head';
const ROUTE = '/api/repos/:org/:repo/head';
const HEAD = '8f3c2a1';
const REFUSED = { error: 'unauthorized' };

export interface Running {
  port: number;
  close(): Promise<void>;
}

/** svc-auth's kinds, and the options of its guard in each (`svc-no-expiry`: no expiry header). */
const SVC_KINDS: readonly Kind[] = ['svc-memory', 'svc-no-expiry', 'svc-bound', 'svc-postgres'];
const guardOptions = (kind: Kind): { expirationHeader?: false } => (kind === 'svc-no-expiry' ? { expirationHeader: false } : {});

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`this variant needs ${what}`);
  return value;
}

async function listenNode(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// node:http: a route by regular expression, the answer by hand.

const HEAD_PATH = /^\/api\/repos\/([^/]+)\/([^/]+)\/head$/;

function nodeAnswer(res: ServerResponse, org: string, repo: string): void {
  const body = JSON.stringify({ org, repo, head: HEAD });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
}

function nodeRefuse(res: ServerResponse, status: number): void {
  const body = JSON.stringify(REFUSED);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Bearer' }).end(body);
}

function nodeApp(kind: Kind, setup: Setup): Server {
  const route = (req: IncomingMessage): RegExpExecArray | null => (req.method === 'GET' ? HEAD_PATH.exec(req.url ?? '') : null);
  if (kind === 'bare') {
    return createServer((req, res) => {
      const m = route(req);
      if (m === null) return nodeRefuse(res, 404);
      nodeAnswer(res, m[1]!, m[2]!);
    });
  }
  if (SVC_KINDS.includes(kind)) {
    type Routed = IncomingMessage & { repo?: string };
    const guard = requireAuth(need(setup.auth, 'an Auth'), {
      permission: SCOPE,
      resource: (req: Routed) => req.repo ?? '',
      ...guardOptions(kind),
    });
    return createServer((req: Routed, res) => {
      const m = route(req);
      if (m === null) return nodeRefuse(res, 404);
      req.repo = `${m[1]}/${m[2]}`;
      void guard(req, res, () => nodeAnswer(res, m[1]!, m[2]!));
    });
  }
  const check = need(setup.check, 'a check');
  return createServer((req, res) => {
    const m = route(req);
    if (m === null) return nodeRefuse(res, 404);
    void check(req.headers.authorization).then((status) => (status === 200 ? nodeAnswer(res, m[1]!, m[2]!) : nodeRefuse(res, status)));
  });
}

// Express 5

function expressApp(kind: Kind, setup: Setup): express.Express {
  const app = express();
  const head: RequestHandler<{ org: string; repo: string }> = (req, res) => {
    res.json({ org: req.params.org, repo: req.params.repo, head: HEAD });
  };
  switch (kind) {
    case 'bare':
      app.get(ROUTE, head);
      return app;
    case 'svc-memory':
    case 'svc-no-expiry':
    case 'svc-bound':
    case 'svc-postgres':
      app.use(svcExpress.svcAuth(need(setup.auth, 'an Auth'), guardOptions(kind)));
      app.get(
        ROUTE,
        svcExpress.requirePermission<express.Request<{ org: string; repo: string }>>(SCOPE, {
          resource: (req) => `${req.params.org}/${req.params.repo}`,
        }),
        head,
      );
      app.use(svcExpress.errorHandler());
      return app;
    case 'jwt-hs256': {
      // express-jwt as its README mounts it, then the claim check.
      const jwt = need(setup.jwt, 'JWT keys');
      const scoped: RequestHandler = (req, res, next) => {
        if (hasScope((req as express.Request & { auth?: unknown }).auth)) next();
        else res.status(403).json(REFUSED);
      };
      const refused: ErrorRequestHandler = (err: { status?: number }, _req, res, next) => {
        if (err.status === 401) res.status(401).set('www-authenticate', 'Bearer').json(REFUSED);
        else next(err);
      };
      app.get(ROUTE, expressjwt({ secret: jwt.verifyPem, algorithms: ['HS256'], issuer: ISSUER }), scoped, head);
      app.use(refused);
      return app;
    }
    default: {
      const check = need(setup.check, 'a check');
      const guard: RequestHandler = (req, res, next) => {
        void check(req.headers.authorization).then((status) => (status === 200 ? next() : res.status(status).json(REFUSED)), next);
      };
      app.get(ROUTE, guard, head);
      return app;
    }
  }
}

// Fastify 5

type Repo = { Params: { org: string; repo: string } };

async function fastifyApp(kind: Kind, setup: Setup): Promise<ReturnType<typeof Fastify>> {
  const app = Fastify({ logger: false });
  const head = async (req: FastifyRequest<Repo>) => ({ org: req.params.org, repo: req.params.repo, head: HEAD });
  switch (kind) {
    case 'bare':
      app.get<Repo>(ROUTE, head);
      return app;
    case 'svc-memory':
    case 'svc-no-expiry':
    case 'svc-bound':
    case 'svc-postgres':
      await app.register(svcFastify.svcAuth, { auth: need(setup.auth, 'an Auth'), ...guardOptions(kind) });
      app.setErrorHandler(svcFastify.errorHandler());
      app.get<Repo>(
        ROUTE,
        {
          preHandler: svcFastify.requirePermission(SCOPE, {
            resource: (req: FastifyRequest<Repo>) => `${req.params.org}/${req.params.repo}`,
          }),
        },
        head,
      );
      return app;
    case 'jwt-eddsa':
    case 'jwt-hs256':
    case 'jwt-eddsa-cached':
    case 'jwt-hs256-cached': {
      // @fastify/jwt (fast-jwt underneath) as its README mounts it: an onRequest hook that verifies.
      const jwt = need(setup.jwt, 'JWT keys');
      const cache = kind.endsWith('-cached');
      await app.register(fastifyJwt, {
        secret: jwt.alg === 'EdDSA' ? { public: jwt.verifyPem, private: need(jwt.signPem, 'a private key') } : jwt.verifyPem,
        verify: { algorithms: [jwt.alg], allowedIss: ISSUER, ...(cache ? { cache: true } : {}) },
      });
      app.addHook('onRequest', async (req, reply) => {
        let payload: unknown;
        try {
          payload = await req.jwtVerify();
        } catch (err) {
          return reply.send(err);
        }
        if (!hasScope(payload)) return reply.code(403).send(REFUSED);
        return undefined;
      });
      app.get<Repo>(ROUTE, head);
      return app;
    }
    default: {
      const check = need(setup.check, 'a check');
      app.addHook('onRequest', async (req, reply) => {
        const status = await check(req.headers.authorization);
        if (status !== 200) return reply.code(status).send(REFUSED);
        return undefined;
      });
      app.get<Repo>(ROUTE, head);
      return app;
    }
  }
}

// Hono on @hono/node-server

function honoApp(kind: Kind, setup: Setup): { fetch: (request: Request) => Response | Promise<Response> } {
  if (SVC_KINDS.includes(kind)) {
    const app = new Hono<svcHono.PrincipalEnv>();
    app.use(svcHono.svcAuth(need(setup.auth, 'an Auth'), guardOptions(kind)));
    app.get(ROUTE, svcHono.requirePermission(SCOPE, { resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}` }), (c) =>
      c.json({ org: c.req.param('org'), repo: c.req.param('repo'), head: HEAD }),
    );
    app.onError(svcHono.onError());
    return app;
  }
  const app = new Hono();
  if (kind === 'jwt-eddsa' || kind === 'jwt-hs256') {
    // hono/jwt as its docs mount it: the key as text (PEM or secret), the algorithm named.
    const jwt = need(setup.jwt, 'JWT keys');
    app.use('/api/*', honoJwt({ secret: jwt.verifyPem, alg: jwt.alg, verification: { iss: ISSUER } }));
    app.use('/api/*', async (c, next) => {
      if (!hasScope(c.get('jwtPayload'))) return c.json(REFUSED, 403);
      await next();
      return undefined;
    });
  } else if (kind !== 'bare') {
    const check = need(setup.check, 'a check');
    app.use('/api/*', async (c, next) => {
      const status = await check(c.req.header('authorization'));
      if (status !== 200) return c.json(REFUSED, status);
      await next();
      return undefined;
    });
  }
  app.get(ROUTE, (c) => c.json({ org: c.req.param('org'), repo: c.req.param('repo'), head: HEAD }));
  return app;
}

/** Build and start the server of one variant on 127.0.0.1, on a free port. */
export async function start(framework: Framework, kind: Kind, setup: Setup): Promise<Running> {
  switch (framework) {
    case 'node':
      return listenNode(nodeApp(kind, setup));
    case 'express':
      return listenNode(createServer(expressApp(kind, setup)));
    case 'fastify': {
      const app = await fastifyApp(kind, setup);
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
    }
    case 'hono': {
      const app = honoApp(kind, setup);
      const server = await new Promise<Server>((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
      });
      return {
        port: (server.address() as AddressInfo).port,
        close: () => new Promise((resolve) => server.close(() => resolve())),
      };
    }
  }
}
