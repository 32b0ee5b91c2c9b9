/**
 * The servers the guard fuzz (test/fuzz/guards.fuzz.test.ts) attacks: every guard and adapter the
 * library returns (requireAuth, withAuth, and svcAuth / requirePermission / the error handlers of
 * Express 4 and 5, Hono and Fastify), mounted in the real frameworks on loopback, with `resource`,
 * `thing` and route handlers whose behaviour each request picks through its `x-behave` header:
 * answer, return junk, throw our errors, throw foreign errors holding a token, throw a string, throw
 * a Proxy that throws on every trap. Every app records the `x-case` of each request its first
 * handler saw, so that the fuzz knows which answers are the library's to get right.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono, type Context } from 'hono';
import {
  ForbiddenError,
  NotFoundError,
  UnavailableError,
  ValidationError,
  requireAuth,
  sendJson,
  withAuth,
  type Auth,
} from '../../src/index';
import * as forExpress from '../../src/adapters/express';
import * as forFastify from '../../src/adapters/fastify';
import * as forHono from '../../src/adapters/hono';

/** A token-shaped secret that thrown errors quote: no answer may ever carry it. */
export const SECRET = 'eyJhbGciOiJFZERTQSIsInR5cCI6InBhdCtqd3QifQ.eyJzdWIiOiJzZWNyZXQifQ.c2VjcmV0LXNpZ25hdHVyZQ';

export const RESOURCE_KINDS = [
  'params',
  'fixed',
  'junk',
  'number',
  'object',
  'promise',
  'throw-foreign',
  'throw-ours',
  'throw-string',
  'throw-hostile',
] as const;
export const THING_KINDS = ['none', 'doc', 'junk', 'throw-foreign', 'throw-hostile'] as const;
export const ROUTE_KINDS = [
  'ok',
  'cookie-forbidden',
  'throw-foreign',
  'reject-foreign',
  'throw-validation',
  'throw-unavailable',
  'throw-string',
  'throw-getters',
  'throw-hostile',
] as const;
type ResourceKind = (typeof RESOURCE_KINDS)[number];
type ThingKind = (typeof THING_KINDS)[number];
type RouteKind = (typeof ROUTE_KINDS)[number];

interface Behave {
  resource: ResourceKind;
  thing: ThingKind;
  route: RouteKind;
}

/** `r=<resource>;t=<thing>;h=<route>`, as the fuzz writes it; anything else reads as the plain case. */
function behave(value: unknown): Behave {
  const text = Array.isArray(value) ? String(value[0]) : String(value ?? '');
  const m = /^r=([a-z-]+);t=([a-z-]+);h=([a-z-]+)$/.exec(text);
  const pick = <T extends string>(list: readonly T[], v: string | undefined, d: T): T => (list.includes(v as T) ? (v as T) : d);
  return {
    resource: pick(RESOURCE_KINDS, m?.[1], 'fixed'),
    thing: pick(THING_KINDS, m?.[2], 'none'),
    route: pick(ROUTE_KINDS, m?.[3], 'ok'),
  };
}

/** An object whose every trap throws: reading, `instanceof`, `String()` on it all throw. */
function hostile(): unknown {
  const boom = (): never => {
    throw new Error(`trap ${SECRET}`);
  };
  return new Proxy(new Error('hostile'), { get: boom, has: boom, getPrototypeOf: boom, ownKeys: boom, getOwnPropertyDescriptor: boom });
}

/** An Error whose message, stack, statusCode and getResponse getters throw. */
function withThrowingGetters(): Error {
  const err = new Error('x');
  for (const key of ['message', 'stack', 'statusCode', 'status', 'getResponse', 'code', 'name']) {
    Object.defineProperty(err, key, {
      get() {
        throw new Error(`getter ${SECRET}`);
      },
    });
  }
  return err;
}

function resourceOf(kind: ResourceKind, fromRequest: () => string): string {
  switch (kind) {
    case 'params':
      return fromRequest();
    case 'fixed':
      return 'acme/web';
    case 'junk':
      return `../${SECRET}/..`;
    case 'number':
      return 42 as unknown as string;
    case 'object':
      return {
        toString() {
          throw new Error(SECRET);
        },
      } as unknown as string;
    case 'promise':
      return Promise.resolve('acme/web') as unknown as string;
    case 'throw-foreign':
      throw new Error(`db password ${SECRET}`);
    case 'throw-ours':
      throw new NotFoundError(`no repository ${SECRET}`);
    case 'throw-string':
      throw SECRET;
    case 'throw-hostile':
      throw hostile();
  }
}

function thingOf(kind: ThingKind): string | undefined {
  switch (kind) {
    case 'none':
      return undefined;
    case 'doc':
      return 'Doc/readme';
    case 'junk':
      return `Doc/../${SECRET}`;
    case 'throw-foreign':
      throw new Error(`db password ${SECRET}`);
    case 'throw-hostile':
      throw hostile();
  }
}

/** The route's work: nothing (then the caller answers 200 `{ ok: true }`), or a throw or rejection. */
function routeOutcome(kind: RouteKind, setCookie: () => void): Promise<never> | undefined {
  switch (kind) {
    case 'ok':
      return undefined;
    case 'cookie-forbidden':
      setCookie();
      throw new ForbiddenError(`not for you ${SECRET}`);
    case 'throw-foreign':
      throw new Error(`db password ${SECRET}`);
    case 'reject-foreign':
      return Promise.reject(new Error(`db password ${SECRET}`));
    case 'throw-validation':
      throw new ValidationError([{ path: ['name', SECRET], message: `bad ${SECRET}` }]);
    case 'throw-unavailable':
      throw new UnavailableError(`store down ${SECRET}`);
    case 'throw-string':
      throw `db password ${SECRET}`;
    case 'throw-getters':
      throw withThrowingGetters();
    case 'throw-hostile':
      throw hostile();
  }
}

/** `/r/<org>/<repo>...` of a URL, percent-decoded (which may throw: that is the callback's problem). */
function fromPath(url: string | undefined): string {
  const [, , org = '', repo = ''] = (url ?? '').split('?')[0]?.split('/') ?? [];
  return `${decodeURIComponent(org)}/${decodeURIComponent(repo)}`;
}

/** A logger that fails every other call: a failing onError must never turn an answer into a crash. */
function flakyLogger(): (err: unknown) => void {
  let n = 0;
  return () => {
    n++;
    if (n % 2 === 0) throw new Error('logger down');
  };
}

/** One app under attack. */
export interface Target {
  name: string;
  /** Loopback port, for targets served over HTTP; `undefined` for in-process fetch handlers. */
  port?: number;
  /** In-process targets: the fetch handler itself. */
  fetch?: (req: Request) => Promise<Response>;
  /** `x-case` values the app's first handler saw. */
  seen: Set<string>;
  /** Rejections of a library-returned handler's promise (must stay empty). */
  rejections: unknown[];
  stop(): Promise<void>;
}

const portOf = (s: Server): number => (s.address() as AddressInfo).port;
const closeServer = (s: Server) =>
  new Promise<void>((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });
async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return portOf(server);
}
const caseOf = (v: unknown): string => (Array.isArray(v) ? String(v[0]) : String(v ?? ''));

export async function nodeTarget(auth: Auth): Promise<Target> {
  const seen = new Set<string>();
  const rejections: unknown[] = [];
  const guarded = requireAuth(auth, {
    permission: 'repo:read',
    resource: (req: IncomingMessage) => resourceOf(behave(req.headers['x-behave']).resource, () => fromPath(req.url)),
    thing: (req: IncomingMessage) => thingOf(behave(req.headers['x-behave']).thing),
    onError: flakyLogger(),
  });
  const signedIn = requireAuth(auth, { realm: 'fuzz', onError: flakyLogger() });
  const server = createServer((req, res) => {
    seen.add(caseOf(req.headers['x-case']));
    const guard = req.url?.startsWith('/r/') ? guarded : signedIn;
    const { route } = behave(req.headers['x-behave']);
    guard(req, res, () => {
      const out = routeOutcome(route, () => res.setHeader('set-cookie', 'session=abc'));
      if (out !== undefined) return out;
      sendJson(res, 200, { ok: true });
      return undefined;
    }).then(undefined, (err: unknown) => rejections.push(err));
  });
  const port = await listen(server);
  return { name: 'node:http requireAuth', port, seen, rejections, stop: () => closeServer(server) };
}

function fetchHandler(auth: Auth): (req: Request) => Promise<Response> {
  return withAuth(
    auth,
    async (req) => {
      const { route } = behave(req.headers.get('x-behave'));
      const out = routeOutcome(route, () => undefined);
      if (out !== undefined) await out;
      return Response.json({ ok: true });
    },
    {
      permission: 'repo:read',
      resource: (req) => resourceOf(behave(req.headers.get('x-behave')).resource, () => fromPath(new URL(req.url).pathname)),
      thing: (req) => thingOf(behave(req.headers.get('x-behave')).thing),
      onError: flakyLogger(),
    },
  );
}

/** A fetch handler served by @hono/node-server (what Bun or Deno would do), or called in process. */
export async function fetchTarget(auth: Auth, served: boolean): Promise<Target> {
  const seen = new Set<string>();
  const rejections: unknown[] = [];
  const handler = fetchHandler(auth);
  const fetch = (req: Request): Promise<Response> => {
    seen.add(caseOf(req.headers.get('x-case')));
    const p = handler(req);
    p.catch((err: unknown) => rejections.push(err));
    return p;
  };
  if (!served) return { name: 'fetch withAuth (in process)', fetch, seen, rejections, stop: async () => undefined };
  const server = await servedFetch(fetch);
  return { name: 'fetch withAuth (served)', port: portOf(server), seen, rejections, stop: () => closeServer(server) };
}

function servedFetch(fetch: (req: Request) => Promise<Response>): Promise<Server> {
  return new Promise<Server>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
}

export async function expressTarget(auth: Auth, version: 4 | 5): Promise<Target> {
  const seen = new Set<string>();
  const express = (version === 5 ? express5 : express4) as typeof express5;
  const app = express();
  app.use((req, _res, next) => {
    seen.add(caseOf(req.headers['x-case']));
    next();
  });
  app.use(forExpress.svcAuth(auth, { onError: flakyLogger() }));
  const check = (params: (req: express5.Request) => string) =>
    forExpress.requirePermission('repo:read', {
      resource: (req) => resourceOf(behave(req.headers['x-behave']).resource, () => params(req)),
      thing: (req) => thingOf(behave(req.headers['x-behave']).thing),
    });
  const handler: express5.RequestHandler = (req, res, next) => {
    const out = routeOutcome(behave(req.headers['x-behave']).route, () => res.cookie('session', 'abc'));
    // Express 4 does not catch rejections: pass them to next, as its docs say.
    if (out !== undefined) return void out.catch(next);
    res.json({ ok: true });
  };
  app.all(
    '/r/:org/:repo',
    check((req) => `${req.params.org}/${req.params.repo}`),
    handler,
  );
  app.use(
    check((req) => fromPath(req.path)),
    handler,
  );
  app.use(forExpress.errorHandler({ onError: flakyLogger() }));
  // The app's own last error handler: errorHandler() passes foreign errors on, by design.
  app.use((_err: unknown, _req: express5.Request, res: express5.Response, next: express5.NextFunction) => {
    if (res.headersSent) return next(_err);
    res.status(500).json({ error: 'internal', message: 'internal error' });
  });
  const server = createServer(app);
  const port = await listen(server);
  return { name: `Express ${version}`, port, seen, rejections: [], stop: () => closeServer(server) };
}

export async function honoTarget(auth: Auth, served: boolean): Promise<Target> {
  const seen = new Set<string>();
  const rejections: unknown[] = [];
  const app = new Hono<forHono.PrincipalEnv>();
  app.use(async (c, next) => {
    seen.add(caseOf(c.req.header('x-case')));
    await next();
  });
  app.use(forHono.svcAuth(auth, { onError: flakyLogger() }));
  const check = (params: (c: Context) => string) =>
    forHono.requirePermission('repo:read', {
      resource: (c) => resourceOf(behave(c.req.header('x-behave')).resource, () => params(c)),
      thing: (c) => thingOf(behave(c.req.header('x-behave')).thing),
    });
  const handler = (c: Context) => {
    const out = routeOutcome(behave(c.req.header('x-behave')).route, () => c.header('set-cookie', 'session=abc'));
    return out ?? c.json({ ok: true });
  };
  app.all(
    '/r/:org/:repo',
    check((c) => `${c.req.param('org')}/${c.req.param('repo')}`),
    handler,
  );
  app.all(
    '*',
    check((c) => fromPath(new URL(c.req.url).pathname)),
    handler,
  );
  app.onError(forHono.onError({ onError: flakyLogger() }));
  const fetch = (req: Request): Promise<Response> => {
    const p = Promise.resolve(app.fetch(req));
    p.catch((err: unknown) => rejections.push(err));
    return p;
  };
  if (!served) return { name: 'Hono (in process)', fetch, seen, rejections, stop: async () => undefined };
  const server = await servedFetch(fetch);
  return { name: 'Hono (@hono/node-server)', port: portOf(server), seen, rejections, stop: () => closeServer(server) };
}

export async function fastifyTarget(auth: Auth): Promise<Target> {
  const seen = new Set<string>();
  const app = Fastify();
  app.addHook('onRequest', async (req) => {
    seen.add(caseOf(req.headers['x-case']));
  });
  await app.register(forFastify.svcAuth, { auth, onError: flakyLogger() });
  app.setErrorHandler(forFastify.errorHandler({ onError: flakyLogger() }));
  app.setNotFoundHandler(async () => {
    throw new NotFoundError('no such route');
  });
  type Params = { Params: Record<string, string> };
  const check = (params: (req: { params: Record<string, string>; url: string }) => string) =>
    forFastify.requirePermission<Params>('repo:read', {
      resource: (req) => resourceOf(behave(req.headers['x-behave']).resource, () => params(req)),
      thing: (req) => thingOf(behave(req.headers['x-behave']).thing),
    });
  const handler = async (req: { headers: Record<string, unknown> }, reply: { header(n: string, v: string): unknown }) => {
    const out = routeOutcome(behave(req.headers['x-behave']).route, () => reply.header('set-cookie', 'session=abc'));
    if (out !== undefined) await out;
    return { ok: true };
  };
  app.all<Params>('/r/:org/:repo', { preHandler: check((req) => `${req.params.org}/${req.params.repo}`) }, handler);
  app.all<Params>('/*', { preHandler: check((req) => fromPath(req.url)) }, handler);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { name: 'Fastify', port: portOf(app.server), seen, rejections: [], stop: () => app.close() };
}
