/**
 * Issue 18, items 6 and 7, through the HTTP edge of all four frameworks
 * (node:http `requireAuth`, Express, Hono, Fastify): every refused credential is
 * one `auth.failed` event, also when the header itself is refused before any
 * token is read; and a token pasted into a request path reaches the
 * `access.denied` event redacted.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import express from 'express';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAuth, type Auth, type AuthEvent } from 'svc-auth';
import { requirePermission as expressPermission, svcAuth as expressAuth } from 'svc-auth/express';
import { requirePermission as fastifyPermission, svcAuth as fastifyAuth } from 'svc-auth/fastify';
import { requirePermission as honoPermission, svcAuth as honoAuth } from 'svc-auth/hono';
import { close, listen } from '../contract/examples/world';
import { testAuth } from '../support/auth';

const events: AuthEvent[] = [];
let auth: Auth;
let session = '';
let pat = '';
let node: Server;
let app: Server;
let fastify: FastifyInstance;
let nodeUrl = '';
let appUrl = '';
const hono = new Hono();

/** `/api/repos/<org>/<repo>/head` -> `org/repo`, decoded as the frameworks decode route parameters. */
function repoOf(path: string): string {
  const [, , , org = '', repo = ''] = path.split('?')[0]?.split('/') ?? [];
  return `${decodeURIComponent(org)}/${decodeURIComponent(repo)}`;
}

type Repo = { Params: { org: string; repo: string } };

beforeAll(async () => {
  ({ auth } = await testAuth({ everyone: { orgs: { acme: 'editor' } }, onEvent: (e) => void events.push(e) }));
  session = await auth.issueSession('alice');
  pat = (await auth.client(await auth.authenticate(session)).token.create({ name: 'ci' })).token;

  const guard = requireAuth(auth, { permission: 'repo:read', resource: (req: IncomingMessage) => repoOf(req.url ?? '') });
  node = createServer((req, res) => void guard(req, res, () => res.end('ok')));
  nodeUrl = await listen(node);

  const e = express();
  e.get(
    '/api/repos/:org/:repo/head',
    expressAuth(auth),
    expressPermission('repo:read', { resource: (req) => `${req.params.org}/${req.params.repo}` }),
    (_req, res) => void res.json({ ok: true }),
  );
  app = e.listen(0, '127.0.0.1');
  await new Promise((r) => app.once('listening', r));
  appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}`;

  hono.get(
    '/api/repos/:org/:repo/head',
    honoAuth(auth),
    honoPermission('repo:read', { resource: (c) => `${c.req.param('org')}/${c.req.param('repo')}` }),
    (c) => c.json({ ok: true }),
  );

  fastify = Fastify({ maxParamLength: 2048 }); // the default (100) answers 414 before any guard runs
  await fastify.register(fastifyAuth, { auth });
  fastify.get<Repo>(
    '/api/repos/:org/:repo/head',
    { preHandler: fastifyPermission('repo:read', { resource: (req: FastifyRequest<Repo>) => `${req.params.org}/${req.params.repo}` }) },
    async () => ({ ok: true }),
  );
  await fastify.ready();
});

afterAll(async () => {
  await close(node);
  await close(app);
  await fastify.close();
});

/** One GET through each of the four frameworks; resolves to their four status codes. */
async function everywhere(path: string, authorization?: string): Promise<number[]> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const viaFetch = async (base: string) => (await fetch(`${base}${path}`, { headers })).status;
  return [
    await viaFetch(nodeUrl),
    await viaFetch(appUrl),
    (await hono.request(new Request(`http://127.0.0.1${path}`, { headers }))).status,
    (await fastify.inject({ method: 'GET', url: path, headers })).statusCode,
  ];
}

describe('auth.failed at the HTTP edge (issue 18, item 7)', () => {
  it('no header, Basic, two tokens in one header, a garbage token: one auth.failed per refusal in every framework', async () => {
    await auth.flush();
    events.length = 0;
    const refusals: [string | undefined, string][] = [
      [undefined, 'missing'],
      ['Basic dXNlcjpwYXNz', 'malformed'],
      [`Bearer ${session} ${session}`, 'malformed'],
      [`Bearer ${session}, Bearer ${session}`, 'malformed'],
      ['Bearer garbage', 'malformed'],
    ];
    for (const [header] of refusals) expect(await everywhere('/api/repos/acme/web/head', header)).toEqual([401, 401, 401, 401]);
    await auth.flush();
    const failed = events.filter((e) => e.type === 'auth.failed');
    expect(failed).toHaveLength(refusals.length * 4);
    expect(failed.map((e) => e.type === 'auth.failed' && e.reason)).toEqual(
      refusals.flatMap(([, reason]) => [reason, reason, reason, reason]),
    );
    expect(JSON.stringify(events)).not.toContain(session.split('.')[2]);
  });
});

describe('token values in access.denied at the HTTP edge (issue 18, item 6)', () => {
  it('GET /api/repos/<PAT>/x/head: the PAT reaches the event as [redacted], in every framework', async () => {
    await auth.flush();
    events.length = 0;
    for (const spelled of [pat, pat.replaceAll('.', '%2E')]) {
      expect(await everywhere(`/api/repos/${spelled}/x/head`, `Bearer ${session}`)).toEqual([400, 400, 400, 400]);
    }
    await auth.flush();
    const denied = events.filter((e) => e.type === 'access.denied');
    expect(denied).toHaveLength(8);
    for (const e of denied) {
      expect(e).toMatchObject({ resource: '[redacted]x', permission: 'repo:read', reason: 'invalid' });
    }
    const text = JSON.stringify(events);
    for (const segment of pat.split('.').slice(1)) expect(text).not.toContain(segment.slice(0, 16));
  });
});
