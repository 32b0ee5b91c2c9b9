import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { AuthenticationError, ForbiddenError, NotFoundError, UnavailableError, ValidationError } from '../../src/errors';
import { ALLOW, DENY_INVALID, DENY_SCOPE, DENY_THING, type Decision, type Principal } from '../../src/core/policy';
import type { Auth } from '../../src/service';
import { bearerFromRequest } from '../../src/tokens';
import { type AuthCheck, principalOf, sendJson } from '../../src/http';
import { requireAuth } from '../../src/adapters/node';
import { withAuth } from '../../src/adapters/fetch';
import { caught } from '../support/errors';

const SECRET = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.c2VjcmV0c2VjcmV0';
const EXPIRES = new Date(Date.UTC(2030, 0, 1));

/** A stand-in for createAuth: tokens are names of outcomes. */
function fakeAuth(overrides: Partial<Auth> = {}): Auth {
  const alice: Principal = { kind: 'pat', userId: 'alice', tokenId: 't1', tokenName: 'ci', expiresAt: EXPIRES };
  const authenticate = async (token: string): Promise<Principal> => {
    switch (token) {
      case 'alice':
        return alice;
      case 'expired':
        throw new AuthenticationError('expired');
      case 'revoked':
        throw new AuthenticationError('revoked');
      case 'down':
        throw new UnavailableError('store timed out');
      case 'crash':
        throw new Error(`driver crashed on ${SECRET}`);
      default:
        throw new AuthenticationError('unknown');
    }
  };
  return {
    authenticate,
    authenticateRequest: async (req) => authenticate(bearerFromRequest(req)),
    authorize(p: Principal, resource: string, permission: string, thing?: string): Decision {
      if (p !== alice) return DENY_INVALID;
      if (!/^[a-z]+\/[a-z]+$/.test(resource)) return DENY_INVALID;
      if (resource !== 'acme/web' || permission !== 'repo:read') return DENY_SCOPE;
      if (thing !== undefined && !thing.startsWith('Doc/')) return DENY_THING;
      return ALLOW;
    },
    client: () => {
      throw new ForbiddenError();
    },
    issueSession: async () => 'x',
    principalFor: async () => alice,
    issueComponentToken: async () => 'x',
    committer: () => 'svc:default/users/Identity/alice',
    revokeToken: async () => undefined,
    tokensOf: async () => [],
    sweepExpiring: async () => [],
    purge: async () => 0,
    reportLeaked: async () => ({ received: 0, revoked: 0, ignored: 0, revokedIds: [], outcomes: [] }),
    flush: async () => undefined,
    ...overrides,
  };
}

function repoOf(url: string): string {
  const parts = new URL(url, 'http://x').pathname.split('/');
  return `${parts[3] ?? ''}/${parts[4] ?? ''}`;
}

function thingOf(url: string): string | undefined {
  const parts = new URL(url, 'http://x').pathname.split('/');
  return parts[5] === 'things' ? parts.slice(6).join('/') : undefined;
}

let server: Server | undefined;

async function serveMiddleware(
  auth: Auth,
  check: AuthCheck<IncomingMessage> | undefined,
  after: (req: IncomingMessage, res: ServerResponse) => void = (req, res) => sendJson(res, 200, { user: principalOf(req).userId }),
): Promise<{ url: string; port: number }> {
  const mw = requireAuth(auth, check);
  server = createServer((req, res) => void mw(req, res, () => after(req, res)));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port };
}

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** Sends bytes as they are, so a header can be repeated or carry odd characters. */
function rawRequest(port: number, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.write([...lines, 'Connection: close', '', ''].join('\r\n'));
  });
}

const readCheck: AuthCheck<IncomingMessage> = {
  permission: 'repo:read',
  resource: (req) => repoOf(req.url ?? ''),
  thing: (req) => thingOf(req.url ?? ''),
};

describe('H1/H2: requireAuth on a real node server', () => {
  it('H1: a valid bearer token passes and principalOf gives the principal', async () => {
    const { url } = await serveMiddleware(fakeAuth(), readCheck);
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: `${scheme} alice` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ user: 'alice' });
    }
  });

  it('H2: no header is 401 with a bare challenge', async () => {
    const { url } = await serveMiddleware(fakeAuth(), readCheck);
    const res = await fetch(`${url}/api/repos/acme/web/head`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ error: 'authentication', reason: 'missing' });
  });

  it.each([
    ['Bearer expired', 'expired'],
    ['Bearer revoked', 'revoked'],
    ['Bearer nobody', 'unknown'],
    ['Basic YWxpY2U6eA==', 'malformed'],
    ['Bearer alice extra', 'malformed'],
  ])('H2: %j is 401 invalid_token (%s)', async (header, reason) => {
    const { url } = await serveMiddleware(fakeAuth(), readCheck);
    const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: header } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await res.json()).toMatchObject({ error: 'authentication', reason });
  });

  it('H2: a scope denial is 403 insufficient_scope and the handler never runs', async () => {
    let ran = false;
    const { url } = await serveMiddleware(fakeAuth(), readCheck, (_req, res) => {
      ran = true;
      res.end();
    });
    const res = await fetch(`${url}/api/repos/acme/other/head`, { headers: { authorization: 'Bearer alice' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="insufficient_scope"');
    expect(await res.json()).toMatchObject({ error: 'forbidden', reason: 'scope' });
    expect(ran).toBe(false);
  });

  it('H2: a thing denial is 403 with reason thing; an allowed thing passes', async () => {
    const { url } = await serveMiddleware(fakeAuth(), readCheck);
    const denied = await fetch(`${url}/api/repos/acme/web/things/Secret/x`, { headers: { authorization: 'Bearer alice' } });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ reason: 'thing' });
    const allowed = await fetch(`${url}/api/repos/acme/web/things/Doc/readme`, { headers: { authorization: 'Bearer alice' } });
    expect(allowed.status).toBe(200);
  });

  it("H2: an 'invalid' decision is 400", async () => {
    const { url } = await serveMiddleware(fakeAuth(), readCheck);
    const res = await fetch(`${url}/api/repos/ACME!/web/head`, { headers: { authorization: 'Bearer alice' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'validation', reason: 'invalid' });
  });

  it('H2: a store outage is 503 with Retry-After and reaches onError', async () => {
    const seen: unknown[] = [];
    const { url } = await serveMiddleware(fakeAuth(), { ...readCheck, onError: (err) => seen.push(err) });
    const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: 'Bearer down' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(UnavailableError);
  });

  it('H2 attack: a crash holding a token answers 500 generically; onError sees the original', async () => {
    const seen: unknown[] = [];
    const { url } = await serveMiddleware(fakeAuth(), {
      ...readCheck,
      onError: (err) => {
        seen.push(err);
        throw new Error('the logger fails too');
      },
    });
    const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: 'Bearer crash' } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toEqual({ error: 'internal', message: 'internal error' });
    expect(String((seen[0] as Error).message)).toContain(SECRET);
  });

  it('H1 attack: an Authorization header sent twice is 401 malformed (node keeps only the first)', async () => {
    const { port } = await serveMiddleware(fakeAuth(), readCheck);
    const text = await rawRequest(port, [
      'GET /api/repos/acme/web/head HTTP/1.1',
      'Host: 127.0.0.1',
      'Authorization: Bearer alice',
      'authorization: Bearer alice',
    ]);
    expect(text.startsWith('HTTP/1.1 401')).toBe(true);
    expect(text).toContain('"reason":"malformed"');
  });

  it('H1 attack: a tab inside the header value is 401 malformed', async () => {
    const { port } = await serveMiddleware(fakeAuth(), readCheck);
    const text = await rawRequest(port, ['GET /api/repos/acme/web/head HTTP/1.1', 'Host: x', 'Authorization: Bearer\talice']);
    expect(text.startsWith('HTTP/1.1 401')).toBe(true);
    expect(text).toContain('"reason":"malformed"');
  });

  it('H1: the header name is case-insensitive on the wire', async () => {
    const { port } = await serveMiddleware(fakeAuth(), readCheck);
    const text = await rawRequest(port, ['GET /api/repos/acme/web/head HTTP/1.1', 'Host: x', 'AUTHORIZATION: Bearer alice']);
    expect(text.startsWith('HTTP/1.1 200')).toBe(true);
  });

  it('authenticate-only guard: no options, any valid token passes', async () => {
    const { url } = await serveMiddleware(fakeAuth(), undefined);
    const res = await fetch(`${url}/anything`, { headers: { authorization: 'Bearer alice' } });
    expect(res.status).toBe(200);
  });

  it('H2: an error thrown by next() is answered, not left unhandled', async () => {
    const { url } = await serveMiddleware(fakeAuth(), readCheck, () => {
      throw new NotFoundError('no such repo');
    });
    const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: 'Bearer alice' } });
    expect(res.status).toBe(404);
  });

  it('fails closed: an authorize that returns garbage or throws never lets the request through', async () => {
    for (const authorize of [
      () => undefined,
      () => ({ allowed: 'yes' }),
      () => {
        throw new Error(SECRET);
      },
    ]) {
      const auth = fakeAuth({ authorize: authorize as unknown as Auth['authorize'] });
      const { url } = await serveMiddleware(auth, readCheck);
      const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: 'Bearer alice' } });
      expect([403, 500]).toContain(res.status);
      expect(await res.text()).not.toContain(SECRET);
      const s = server;
      server = undefined;
      s?.closeAllConnections();
      await new Promise<void>((resolve) => s?.close(() => resolve()));
    }
  });
});

describe('principalOf', () => {
  it('fails closed with AuthenticationError missing on a request no guard accepted', () => {
    const err = caught(() => principalOf(new Request('http://x/')));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).reason).toBe('missing');
  });

  it('finds the principal on a request object that cannot take a property (frozen)', async () => {
    const guard = requireAuth(fakeAuth());
    const req = Object.freeze({ headers: { authorization: 'Bearer alice' }, rawHeaders: ['Authorization', 'Bearer alice'] });
    const res = { headersSent: false, setHeader: () => undefined } as unknown as ServerResponse;
    let seen: string | undefined;
    await guard(req as unknown as IncomingMessage, res, () => {
      seen = principalOf(req as unknown as IncomingMessage).userId;
    });
    expect(seen).toBe('alice');
  });

  it('forged attachment: a property a caller sets on the request is not a principal', () => {
    const req = new Request('http://x/');
    for (const key of ['principal', 'auth', 'svc-auth.attached']) (req as unknown as Record<string, unknown>)[key] = { userId: 'admin' };
    (req as unknown as Record<symbol, unknown>)[Symbol('svc-auth.attached')] = { gate: {}, principal: { userId: 'admin' } };
    expect((caught(() => principalOf(req)) as AuthenticationError).reason).toBe('missing');
  });
});

describe('H2: withAuth (fetch)', () => {
  const head = (auth: Auth = fakeAuth()) =>
    withAuth(auth, async (req, p) => Response.json({ user: p.userId, same: principalOf(req) === p }), {
      permission: 'repo:read',
      resource: (req) => repoOf(req.url),
    });
  const get = (path: string, token?: string) =>
    new Request(`http://svc.test${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

  it('passes the principal to the handler', async () => {
    const res = await head()(get('/api/repos/acme/web/head', 'alice'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: 'alice', same: true });
  });

  it.each([
    [undefined, 401, 'Bearer realm="svc"'],
    ['expired', 401, 'Bearer realm="svc", error="invalid_token", error_description="the token has expired"'],
  ])('H2: token %s -> %i', async (token, status, challenge) => {
    const res = await head()(get('/api/repos/acme/web/head', token));
    expect(res.status).toBe(status);
    expect(res.headers.get('www-authenticate')).toBe(challenge);
  });

  it('H2: a denial is 403 insufficient_scope', async () => {
    const res = await head()(get('/api/repos/acme/other/head', 'alice'));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'forbidden', reason: 'scope' });
  });

  it('H2: errors thrown by the handler are mapped', async () => {
    const h = withAuth(fakeAuth(), () => {
      throw new NotFoundError();
    });
    expect((await h(get('/x', 'alice'))).status).toBe(404);
  });

  it('H2 attack: a foreign error thrown by the handler is a generic 500 without the token', async () => {
    const seen: unknown[] = [];
    const h = withAuth(
      fakeAuth(),
      () => {
        throw new Error(`oops ${SECRET}`);
      },
      { onError: (err) => seen.push(err) },
    );
    const res = await h(get('/x', 'alice'));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain(SECRET);
    expect(seen).toHaveLength(1);
  });

  it('a handler that returns no Response is a 500 reported to onError', async () => {
    const seen: unknown[] = [];
    const h = withAuth(fakeAuth(), (() => ({ not: 'a response' })) as never, { onError: (err) => seen.push(err) });
    expect((await h(get('/x', 'alice'))).status).toBe(500);
    expect(seen[0]).toBeInstanceOf(ValidationError);
  });
});

describe('guards validate their options once, when built', () => {
  const bad: [string, unknown, unknown][] = [
    ['auth not an object', null, undefined],
    ['auth without authenticateRequest', {}, undefined],
    ['an unknown option', fakeAuth(), { permision: 'repo:read' }],
    ['an unknown permission', fakeAuth(), { permission: 'repo:delete', resource: () => 'a/b' }],
    ['permission without resource', fakeAuth(), { permission: 'repo:read' }],
    ['resource without permission', fakeAuth(), { resource: () => 'a/b' }],
    ['thing without permission', fakeAuth(), { thing: () => 'Doc/x' }],
    ['resource not a function', fakeAuth(), { permission: 'repo:read', resource: 'acme/web' }],
    ['onError not a function', fakeAuth(), { onError: 'log' }],
    ['options not an object', fakeAuth(), 'repo:read'],
  ];
  it.each(bad)('requireAuth: %s -> ValidationError', (_name, auth, options) => {
    expect(() => requireAuth(auth as Auth, options as AuthCheck<IncomingMessage>)).toThrow(ValidationError);
  });
  it.each(bad)('withAuth: %s -> ValidationError', (_name, auth, options) => {
    expect(() => withAuth(auth as Auth, () => new Response(), options as AuthCheck<Request>)).toThrow(ValidationError);
  });
  it('withAuth: a handler that is not a function -> ValidationError with path handler', () => {
    const err = caught(() => withAuth(fakeAuth(), 'nope' as never));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.pathText)).toContain('handler');
  });

  it('changing the options object afterwards does not loosen the guard', async () => {
    const options: AuthCheck<Request> = { permission: 'repo:read', resource: () => 'acme/other' };
    const h = withAuth(fakeAuth(), () => new Response('ok'), options);
    options.resource = () => 'acme/web';
    const res = await h(new Request('http://x/', { headers: { authorization: 'Bearer alice' } }));
    expect(res.status).toBe(403);
  });
});
