/**
 * The authorization server mounted in Express 5, Fastify 5 and Hono (on node),
 * beside the application's own routes and body parsers, as docs/oauth.md shows.
 */
import type { AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { serve, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { decodeJwt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { systemTime, testAuth } from '../support/auth';
import { createAuthorizationServer, MemoryOAuthStorage, type AuthorizationServer } from '../../src/entries/oauth';
import { codeFlow } from '../support/oauth';

/** An AS whose issuer is `base` (the framework's server is already listening there). */
async function authorizationServer(base: string): Promise<AuthorizationServer> {
  const { auth } = await testAuth({ issuer: 'svc-fw', everyone: { orgs: { acme: 'viewer' } }, now: systemTime });
  return createAuthorizationServer({ auth, issuer: base, signIn: { users: () => ['alice'] }, storage: new MemoryOAuthStorage() });
}

/** The whole flow through the framework's server, and the application's own JSON route still works. */
async function check(base: string): Promise<void> {
  const { tokens } = await codeFlow(base, { scope: 'repo:read' });
  expect(decodeJwt(tokens.access_token as string)).toMatchObject({ iss: base, aud: `${base}/mcp`, sub: 'alice' });
  const own = await fetch(`${base}/app/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  expect(await own.json()).toEqual({ echoed: { a: 1 } });
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of closers) await c();
});

describe('mounting the authorization server in a framework', () => {
  it('Express 5: app.use(oauth.node) before the body parsers', async () => {
    const app = express();
    const at: { oauth?: AuthorizationServer } = {}; // set once the server listens (the issuer is its URL)
    app.use((req, res, next) => (at.oauth === undefined ? next() : at.oauth.node(req, res, next)));
    app.use(express.json());
    app.post('/app/echo', (req, res) => {
      res.json({ echoed: req.body as unknown });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    at.oauth = await authorizationServer(base);
    await check(base);
  });

  it('Express 5: body parsers before the mount (express.urlencoded(), express.json()): the parsed req.body is read', async () => {
    const app = express();
    const at: { oauth?: AuthorizationServer } = {};
    app.use(express.urlencoded());
    app.use(express.json());
    app.use((req, res, next) => (at.oauth === undefined ? next() : at.oauth.node(req, res, next)));
    app.post('/app/echo', (req, res) => {
      res.json({ echoed: req.body as unknown });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    at.oauth = await authorizationServer(base);
    // Registration (JSON), the sign-in and consent forms, the token endpoint and a refresh (forms).
    await check(base);
    const { tokens, clientId } = await codeFlow(base, { scope: 'repo:read' });
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
        client_id: clientId,
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
  });

  it('Fastify 5: an onRequest hook hands the server its paths before Fastify reads a body', async () => {
    const app = Fastify();
    const at: { oauth?: AuthorizationServer } = {}; // set once the server listens (the issuer is its URL)
    app.addHook('onRequest', async (request, reply) => {
      if (at.oauth === undefined || !at.oauth.owns(request.url.split('?')[0] ?? '/')) return;
      reply.hijack();
      await at.oauth.handle(request.raw, reply.raw);
    });
    app.post('/app/echo', async (request) => ({ echoed: request.body }));
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    at.oauth = await authorizationServer(base);
    await check(base);
  });

  it('Hono on @hono/node-server: a middleware on the node request, RESPONSE_ALREADY_SENT when answered', async () => {
    const app = new Hono<{ Bindings: HttpBindings }>();
    const at: { oauth?: AuthorizationServer } = {}; // set once the server listens (the issuer is its URL)
    app.use(async (c, next) => {
      if (at.oauth !== undefined && (await at.oauth.handle(c.env.incoming, c.env.outgoing as ServerResponse))) return RESPONSE_ALREADY_SENT;
      await next();
    });
    app.post('/app/echo', async (c) => c.json({ echoed: await c.req.json() }));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    at.oauth = await authorizationServer(base);
    await check(base);
  });
});
