/**
 * Regression tests of issue 8 for the framework-agnostic guards (requireAuth,
 * withAuth): async handlers, request typing, realm and the expiry header.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { principalOf, sendJson } from '../../src/http';
import { requireAuth } from '../../src/adapters/node';
import { withAuth } from '../../src/adapters/fetch';
import { call, close, listen, makeWorld, type World } from '../contract/examples/world';
import { caught } from '../support/errors';

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});

describe('requireAuth on node:http', () => {
  let server: Server;
  let url = '';
  const seen: unknown[] = [];
  beforeAll(async () => {
    const signedIn = requireAuth(w.auth, { realm: 'acme', onError: (err) => seen.push(err) });
    const quiet = requireAuth(w.auth, { expirationHeader: false });
    server = createServer((req, res) => {
      if (req.url === '/revoke') {
        void signedIn(req, res, async () => {
          await w.auth.client(principalOf(req)).token.revoke('no-such-name');
        });
      } else if (req.url === '/boom') {
        void signedIn(req, res, async () => {
          await Promise.resolve();
          throw new Error('database password is hunter2');
        });
      } else if (req.url === '/quiet') {
        void quiet(req, res, () => sendJson(res, 200, { ok: true }));
      } else {
        void signedIn(req, res, () => sendJson(res, 200, { user: principalOf(req).userId }));
      }
    });
    url = await listen(server);
  });
  afterAll(async () => close(server));

  it('an async handler rejecting with NotFoundError is a 404 and the process keeps serving (was: unhandled rejection, crash)', async () => {
    const r = await call(url, 'GET', '/revoke', w.alice);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ error: 'not_found' });
    expect((await call(url, 'GET', '/', w.alice)).status).toBe(200);
  });

  it('an async handler rejecting with a foreign error is a 500 with no detail, reported to onError', async () => {
    const r = await call(url, 'GET', '/boom', w.alice);
    expect(r.status).toBe(500);
    const text = await r.text();
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toEqual({ error: 'internal', message: 'internal error' });
    expect(String(seen.at(-1))).toContain('hunter2');
  });

  it('realm option: the challenge names the configured realm (was hard-coded "svc")', async () => {
    const r = await call(url, 'GET', '/');
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="acme"');
  });

  it('Svc-Token-Expiration is the principal expiry in ISO 8601; expirationHeader: false leaves it out', async () => {
    const p = await w.auth.authenticate(w.reader);
    const r = await call(url, 'GET', '/', w.reader);
    expect(r.headers.get('svc-token-expiration')).toBe(p.expiresAt.toISOString());
    const quiet = await call(url, 'GET', '/quiet', w.reader);
    expect(quiet.status).toBe(200);
    expect(quiet.headers.get('svc-token-expiration')).toBeNull();
  });

  it('Bearer garbage is a malformed token, not a bad header; Basic is a bad header', async () => {
    const garbage = await call(url, 'GET', '/', 'Bearer garbage');
    expect(await garbage.json()).toMatchObject({ reason: 'malformed', message: 'the token is malformed' });
    const basic = await call(url, 'GET', '/', 'Basic dXNlcjpwYXNz');
    expect(await basic.json()).toMatchObject({ reason: 'malformed', message: 'the Authorization header is not a valid bearer credential' });
  });
});

describe('requireAuth is generic in its request type (README resource extractor defect)', () => {
  it('compiles under strict with (req: express.Request) => req.params.org + "/" + req.params.repo', () => {
    const guard = requireAuth(w.auth, {
      permission: 'repo:read',
      resource: (req: express.Request) => req.params.org + '/' + req.params.repo,
    });
    const asExpress: express.RequestHandler = guard;
    expect(typeof asExpress).toBe('function');
    // @ts-expect-error an IncomingMessage has no params: the guard keeps the request type it was given
    requireAuth(w.auth, { permission: 'repo:read', resource: (req: IncomingMessage) => req.params.org });
  });

  it('a misspelt permission does not compile and is refused when the guard is built', () => {
    // @ts-expect-error 'repo:reed' is not a Permission
    expect(() => requireAuth(w.auth, { permission: 'repo:reed', resource: () => 'acme/web' })).toThrow(ValidationError);
    expect(() => requireAuth(w.auth, { realm: 'a"b' })).toThrow(ValidationError);
    // @ts-expect-error optional belongs to the adapters
    expect(() => requireAuth(w.auth, { optional: true })).toThrow(ValidationError);
  });
});

describe('withAuth', () => {
  it('sets Svc-Token-Expiration on the handler response, even one with immutable headers', async () => {
    const p = await w.auth.authenticate(w.reader);
    const h = withAuth(w.auth, async () => Response.redirect('http://127.0.0.1/elsewhere', 302));
    const r = await h(new Request('http://x/', { headers: { authorization: `Bearer ${w.reader}` } }));
    expect(r.status).toBe(302);
    expect(r.headers.get('svc-token-expiration')).toBe(p.expiresAt.toISOString());
  });

  it('realm option on withAuth names the realm of 401 and 403', async () => {
    const h = withAuth(w.auth, async () => new Response('ok'), { realm: 'acme', permission: 'repo:write', resource: () => 'acme/web' });
    expect((await h(new Request('http://x/'))).headers.get('www-authenticate')).toBe('Bearer realm="acme"');
    const denied = await h(new Request('http://x/', { headers: { authorization: `Bearer ${w.reader}` } }));
    expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="acme", error="insufficient_scope"');
  });
});

describe("auth.client('a string') says what it expects", () => {
  it('names the Principal from authenticate() when given the token text', () => {
    const err = caught(() => w.auth.client(w.reader as never));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe('validation');
    expect((err as ValidationError).issues[0]?.message).toMatch(/Principal that auth\.authenticate\(\) returned, got string/);
  });
});
