import { describe, it, expect, afterEach, beforeAll } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { AuthenticationError, NotFoundError, UnavailableError, ValidationError } from '../../src/errors';
import type { UserRoles } from '../../src/core/policy';
import type { Auth } from '../../src/service';
import { type AuthCheck, principalOf, sendJson } from '../../src/http';
import { requireAuth } from '../../src/adapters/node';
import { withAuth } from '../../src/adapters/fetch';
import { caught } from '../support/errors';
import { DAY_MS } from '../support/clock';
import { testAuth } from '../support/auth';

const SECRET = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.c2VjcmV0c2VjcmV0';

/** A real Auth (memory store, pinned clock) and one real token per outcome the guards answer. */
interface World {
  auth: Auth;
  token: Record<'alice' | 'expired' | 'revoked' | 'nobody' | 'down', string>;
}

async function makeWorld(): Promise<World> {
  const roles = new Map<string, UserRoles>([['alice', { orgs: { acme: 'viewer' } }]]);
  const { auth, clock } = await testAuth({
    members: {
      rolesOf: (u) => {
        // The member directory of `dave` is down: his requests meet an outage, never an allow.
        if (u === 'dave') throw new Error('member directory timed out');
        return roles.get(u) ?? {};
      },
    },
  });
  const session = await auth.issueSession('alice');
  const created = await auth.client(await auth.authenticate(session)).token.create({
    name: 'ci',
    scopes: [{ resource: 'acme/web', permissions: ['repo:read'], allowedMatches: ['Doc/**'] }],
  });
  clock.advance(-DAY_MS);
  const expired = await auth.issueSession('alice', { expiresIn: '1h' });
  clock.advance(DAY_MS);
  const revoked = await auth.issueSession('alice');
  await auth.revokeToken((await auth.authenticate(revoked)).tokenId as string);
  // Signed with the same keys for the same issuer, but recorded in another store: this Auth knows no such token.
  const nobody = await (await testAuth()).auth.issueSession('alice');
  const down = await auth.issueSession('dave');
  return { auth, token: { alice: created.token, expired, revoked, nobody, down } };
}

let world: World;
beforeAll(async () => {
  world = await makeWorld();
});
const bearer = (name: keyof World['token'], scheme = 'Bearer'): string => `${scheme} ${world.token[name]}`;

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
    const { url } = await serveMiddleware(world.auth, readCheck);
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: bearer('alice', scheme) } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ user: 'alice' });
    }
  });

  it('H2: no header is 401 with a bare challenge', async () => {
    const { url } = await serveMiddleware(world.auth, readCheck);
    const res = await fetch(`${url}/api/repos/acme/web/head`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ error: 'authentication', reason: 'missing' });
  });

  it.each([
    ['an expired token', () => bearer('expired'), 'expired'],
    ['a revoked token', () => bearer('revoked'), 'revoked'],
    ['a token this Auth never recorded', () => bearer('nobody'), 'unknown'],
    ['Basic YWxpY2U6eA==', () => 'Basic YWxpY2U6eA==', 'malformed'],
    ['a token followed by more text', () => `${bearer('alice')} extra`, 'malformed'],
  ])('H2: %s is 401 invalid_token (%s)', async (_name, header, reason) => {
    const { url } = await serveMiddleware(world.auth, readCheck);
    const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: header() } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await res.json()).toMatchObject({ error: 'authentication', reason });
  });

  it('H2: a scope denial is 403 insufficient_scope and the handler never runs', async () => {
    let ran = false;
    const { url } = await serveMiddleware(world.auth, readCheck, (_req, res) => {
      ran = true;
      res.end();
    });
    const res = await fetch(`${url}/api/repos/acme/other/head`, { headers: { authorization: bearer('alice') } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="insufficient_scope"');
    expect(await res.json()).toMatchObject({ error: 'forbidden', reason: 'scope' });
    expect(ran).toBe(false);
  });

  it('H2: a thing denial is 403 with reason thing; an allowed thing passes', async () => {
    const { url } = await serveMiddleware(world.auth, readCheck);
    const denied = await fetch(`${url}/api/repos/acme/web/things/Secret/x`, { headers: { authorization: bearer('alice') } });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ reason: 'thing' });
    const allowed = await fetch(`${url}/api/repos/acme/web/things/Doc/readme`, { headers: { authorization: bearer('alice') } });
    expect(allowed.status).toBe(200);
  });

  it("H2: an 'invalid' decision is 400", async () => {
    const { url } = await serveMiddleware(world.auth, readCheck);
    const res = await fetch(`${url}/api/repos/ACME!/web/head`, { headers: { authorization: bearer('alice') } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'validation', reason: 'invalid' });
  });

  it('H2: a store outage is 503 with Retry-After and reaches onError', async () => {
    const seen: unknown[] = [];
    const { url } = await serveMiddleware(world.auth, { ...readCheck, onError: (err) => seen.push(err) });
    const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: bearer('down') } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(UnavailableError);
  });

  it('H2 attack: a crash holding a token answers 500 generically; onError sees the original', async () => {
    const seen: unknown[] = [];
    const { url } = await serveMiddleware(
      world.auth,
      {
        ...readCheck,
        onError: (err) => {
          seen.push(err);
          throw new Error('the logger fails too');
        },
      },
      () => {
        throw new Error(`driver crashed on ${SECRET}`);
      },
    );
    const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: bearer('alice') } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toEqual({ error: 'internal', message: 'internal error' });
    expect(String((seen[0] as Error).message)).toContain(SECRET);
  });

  it('H1 attack: an Authorization header sent twice is 401 malformed (node keeps only the first)', async () => {
    const { port } = await serveMiddleware(world.auth, readCheck);
    const text = await rawRequest(port, [
      'GET /api/repos/acme/web/head HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: ${bearer('alice')}`,
      `authorization: ${bearer('alice')}`,
    ]);
    expect(text.startsWith('HTTP/1.1 401')).toBe(true);
    expect(text).toContain('"reason":"malformed"');
  });

  it('H1 attack: a tab inside the header value is 401 malformed', async () => {
    const { port } = await serveMiddleware(world.auth, readCheck);
    const text = await rawRequest(port, [
      'GET /api/repos/acme/web/head HTTP/1.1',
      'Host: x',
      `Authorization: Bearer\t${world.token.alice}`,
    ]);
    expect(text.startsWith('HTTP/1.1 401')).toBe(true);
    expect(text).toContain('"reason":"malformed"');
  });

  it('H1: the header name is case-insensitive on the wire', async () => {
    const { port } = await serveMiddleware(world.auth, readCheck);
    const text = await rawRequest(port, ['GET /api/repos/acme/web/head HTTP/1.1', 'Host: x', `AUTHORIZATION: ${bearer('alice')}`]);
    expect(text.startsWith('HTTP/1.1 200')).toBe(true);
  });

  it('authenticate-only guard: no options, any valid token passes', async () => {
    const { url } = await serveMiddleware(world.auth, undefined);
    const res = await fetch(`${url}/anything`, { headers: { authorization: bearer('alice') } });
    expect(res.status).toBe(200);
  });

  it('H2: an error thrown by next() is answered, not left unhandled', async () => {
    const { url } = await serveMiddleware(world.auth, readCheck, () => {
      throw new NotFoundError('no such repo');
    });
    const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: bearer('alice') } });
    expect(res.status).toBe(404);
  });

  it('fails closed: a resource or thing reader that returns garbage or throws never lets the request through', async () => {
    const boom = (): never => {
      throw new Error(SECRET);
    };
    for (const check of [
      { ...readCheck, resource: () => undefined as unknown as string },
      { ...readCheck, resource: () => ({ toString: () => 'acme/web' }) as unknown as string },
      { ...readCheck, resource: boom },
      { ...readCheck, thing: () => 42 as unknown as string },
      { ...readCheck, thing: boom },
    ]) {
      let ran = false;
      const { url } = await serveMiddleware(world.auth, check, (_req, res) => {
        ran = true;
        res.end();
      });
      const res = await fetch(`${url}/api/repos/acme/web/head`, { headers: { authorization: bearer('alice') } });
      expect([400, 403, 500]).toContain(res.status);
      expect(ran).toBe(false);
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
    const guard = requireAuth(world.auth);
    const req = Object.freeze({ headers: { authorization: bearer('alice') }, rawHeaders: ['Authorization', bearer('alice')] });
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
  const head = (auth: Auth = world.auth) =>
    withAuth(auth, async (req, p) => Response.json({ user: p.userId, same: principalOf(req) === p }), {
      permission: 'repo:read',
      resource: (req) => repoOf(req.url),
    });
  const get = (path: string, token?: keyof World['token']) =>
    new Request(`http://svc.test${path}`, token === undefined ? {} : { headers: { authorization: bearer(token) } });

  it('passes the principal to the handler', async () => {
    const res = await head()(get('/api/repos/acme/web/head', 'alice'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: 'alice', same: true });
  });

  it.each([
    [undefined, 401, 'Bearer realm="svc"'],
    ['expired' as const, 401, 'Bearer realm="svc", error="invalid_token", error_description="the token has expired"'],
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
    const h = withAuth(world.auth, () => {
      throw new NotFoundError();
    });
    expect((await h(get('/x', 'alice'))).status).toBe(404);
  });

  it('H2 attack: a foreign error thrown by the handler is a generic 500 without the token', async () => {
    const seen: unknown[] = [];
    const h = withAuth(
      world.auth,
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
    const h = withAuth(world.auth, (() => ({ not: 'a response' })) as never, { onError: (err) => seen.push(err) });
    expect((await h(get('/x', 'alice'))).status).toBe(500);
    expect(seen[0]).toBeInstanceOf(ValidationError);
  });
});

describe('guards validate their options once, when built', () => {
  // `real`: the Auth of the world (built in beforeAll, after this table is read).
  const bad: [string, unknown, unknown][] = [
    ['auth not an object', null, undefined],
    ['auth without authenticateRequest', {}, undefined],
    ['an unknown option', 'real', { permision: 'repo:read' }],
    ['an unknown permission', 'real', { permission: 'repo:delete', resource: () => 'a/b' }],
    ['permission without resource', 'real', { permission: 'repo:read' }],
    ['resource without permission', 'real', { resource: () => 'a/b' }],
    ['thing without permission', 'real', { thing: () => 'Doc/x' }],
    ['resource not a function', 'real', { permission: 'repo:read', resource: 'acme/web' }],
    ['onError not a function', 'real', { onError: 'log' }],
    ['options not an object', 'real', 'repo:read'],
  ];
  const authOf = (given: unknown): Auth => (given === 'real' ? world.auth : (given as Auth));
  it.each(bad)('requireAuth: %s -> ValidationError', (_name, auth, options) => {
    expect(() => requireAuth(authOf(auth), options as AuthCheck<IncomingMessage>)).toThrow(ValidationError);
  });
  it.each(bad)('withAuth: %s -> ValidationError', (_name, auth, options) => {
    expect(() => withAuth(authOf(auth), () => new Response(), options as AuthCheck<Request>)).toThrow(ValidationError);
  });
  it('withAuth: a handler that is not a function -> ValidationError with path handler', () => {
    const err = caught(() => withAuth(world.auth, 'nope' as never));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.pathText)).toContain('handler');
  });

  it('changing the options object afterwards does not loosen the guard', async () => {
    const options: AuthCheck<Request> = { permission: 'repo:read', resource: () => 'acme/other' };
    const h = withAuth(world.auth, () => new Response('ok'), options);
    options.resource = () => 'acme/web';
    const res = await h(new Request('http://x/', { headers: { authorization: bearer('alice') } }));
    expect(res.status).toBe(403);
  });
});
