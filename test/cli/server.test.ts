import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors';
import { createDevServer, openInstance, type DevInstance } from '../../src/app/dev';
import type { ReferenceServer } from '../../src/app/server';
import { exited, serve, svc, tempHome } from './helpers';

describe('dev server (in-process, same SVC_HOME as the CLI)', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  let dev: DevInstance;
  let server: ReferenceServer;
  let url = '';
  const logs: string[] = [];
  let session = '';
  let docs = '';
  let reader = '';

  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    dev = await openInstance({ SVC_HOME: home });
    await dev.members.set('alice', 'acme', 'editor');
    await dev.members.set('bob', 'acme/web', 'viewer');
    session = await dev.auth.issueSession('alice');
    const client = dev.auth.client(await dev.auth.authenticate(session));
    docs = (
      await client.token.create({
        name: 'docs',
        scopes: [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/**'] }],
        committerIdentity: 'svc:acme/users/Identity/docs-bot',
      })
    ).token;
    reader = (await client.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] })).token;
    server = await createDevServer({ instance: dev, log: (l) => logs.push(l) });
    url = await server.listen({ port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await dev?.close();
    await cleanup();
  });

  const call = (path: string, token?: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${url}${path}`, {
      ...init,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string> | undefined) },
    });

  it('H2: no credential is 401 with WWW-Authenticate Bearer realm="svc" and no error code', async () => {
    const r = await call('/api/repos/acme/web/head');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(await r.json()).toMatchObject({ error: 'authentication', reason: 'missing' });
  });

  it('H2: a forged token is 401 invalid_token', async () => {
    const r = await call('/api/whoami', `${docs.slice(0, -4)}AAAA`);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="svc", error="invalid_token"/);
  });

  it('whoami and head answer 200 with the documented shapes', async () => {
    expect(await (await call('/api/whoami', docs)).json()).toEqual({ kind: 'pat', user: 'alice', token: 'docs' });
    expect(await (await call('/api/whoami', session)).json()).toEqual({ kind: 'session', user: 'alice', token: null });
    const head = await call('/api/repos/Acme/Web/head', reader);
    expect(head.status).toBe(200);
    expect(await head.json()).toEqual({ org: 'acme', repo: 'web', head: '0'.repeat(40) });
  });

  it('H2: a scope without the permission is 403 insufficient_scope', async () => {
    const r = await call('/api/repos/acme/web/things/Doc/a', reader, { method: 'PUT', body: '{"content":1}' });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="svc", error="insufficient_scope"');
    expect(await r.json()).toMatchObject({ error: 'forbidden', reason: 'scope' });
    const other = await call('/api/repos/acme/api/head', reader);
    expect(other.status).toBe(403);
  });

  it('A4: allowedMatches lets a write match Doc/** and refuses other thing names with reason thing', async () => {
    const ok = await call('/api/repos/acme/web/things/Doc/guide/intro', docs, {
      method: 'PUT',
      body: JSON.stringify({ content: { text: 'hi' } }),
    });
    expect(ok.status).toBe(200);
    const written = (await ok.json()) as { commit: string; committer: string };
    expect(written.commit).toMatch(/^[0-9a-f]{40}$/);
    const no = await call('/api/repos/acme/web/things/Img/logo', docs, { method: 'PUT', body: '{"content":"x"}' });
    expect(no.status).toBe(403);
    expect(await no.json()).toMatchObject({ reason: 'thing' });
    const read = await call('/api/repos/acme/web/things/Doc/guide/intro', reader);
    expect(await read.json()).toEqual({ name: 'Doc/guide/intro', content: { text: 'hi' }, commit: written.commit });
    const head = (await (await call('/api/repos/acme/web/head', reader)).json()) as { head: string };
    expect(head.head).toBe(written.commit);
    expect((await call('/api/repos/acme/web/things/Doc/none', reader)).status).toBe(404);
  });

  it('T9: committer is the override, else the token identity, else the owner identity', async () => {
    const put = async (token: string, body: unknown) =>
      (await (await call('/api/repos/acme/web/things/Doc/c', token, { method: 'PUT', body: JSON.stringify(body) })).json()) as {
        committer: string;
      };
    expect((await put(docs, { content: 1 })).committer).toBe('svc:acme/users/Identity/docs-bot');
    expect((await put(docs, { content: 1, committer: 'svc:acme/users/Identity/ops' })).committer).toBe('svc:acme/users/Identity/ops');
    expect((await put(session, { content: 1 })).committer).toBe('svc:default/users/Identity/alice');
    const bad = await call('/api/repos/acme/web/things/Doc/c', docs, { method: 'PUT', body: '{"content":1,"committer":"mallory"}' });
    expect(bad.status).toBe(400);
  });

  it('routes: unknown 404, wrong method 405 with Allow, malformed JSON 400, body over 1 MiB 413', async () => {
    const unknown = await call('/api/nope', docs);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });
    const method = await call('/api/repos/acme/web/head', docs, { method: 'POST' });
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('GET');
    expect((await call('/api/repos/acme/web/things/Doc/j', docs, { method: 'PUT', body: '{nope' })).status).toBe(400);
    expect((await call('/api/repos/acme/web/things/Doc/j', docs, { method: 'PUT', body: '{"content":1,"extra":2}' })).status).toBe(400);
    const big = await call('/api/repos/acme/web/things/Doc/j', docs, {
      method: 'PUT',
      body: JSON.stringify({ content: 'a'.repeat(1024 * 1024) }),
    });
    expect(big.status).toBe(413);
  });

  it('path traversal: an encoded slash or a .. segment never reaches the store', async () => {
    expect((await call('/api/repos/acme/web/things/Doc/..%2F..%2Fx', docs)).status).toBe(404);
    // fetch resolves dot segments itself, so `Doc/../x` arrives as `things/x`: no route.
    expect((await call('/api/repos/acme/web/things/Doc/../x', docs)).status).toBe(404);
    expect((await call('/api/repos/acme/web/things/Doc/a%00b', docs)).status).toBe(400);
    expect((await call('/api/repos/__proto__/web/head', session)).status).toBe(400); // S7: not a name
    expect((await call('/api/repos/constructor/web/head', session)).status).toBe(403); // a name, but no role there
  });

  it('logs one line per request with status, token name and reason, never a token value', async () => {
    await call('/api/whoami', docs);
    const line = logs.at(-1) ?? '';
    expect(line).toMatch(/^GET \/api\/whoami 200 user=alice token=docs reason=allow$/);
    for (const l of logs) for (const t of [docs, reader, session]) expect(l).not.toContain(t);
  });

  it('svc serve logs each denial with its reason (authenticateRequest + authorize), and answers carry Svc-Token-Expiration', async () => {
    const r = await call('/api/repos/acme/web/things/Img/logo', docs, { method: 'PUT', body: '{"content":"x"}' });
    expect(r.status).toBe(403);
    expect(logs.at(-1)).toMatch(/^PUT \/api\/repos\/acme\/web\/things\/Img\/logo 403 user=alice token=docs reason=thing$/);
    await call('/api/whoami');
    expect(logs.at(-1)).toMatch(/ 401 user=- token=- reason=missing$/);
    await call('/api/repos/acme/web/things/Doc/none', reader);
    expect(logs.at(-1)).toMatch(/ 404 user=alice token=reader reason=not_found$/);
    const ok = await call('/api/whoami', reader);
    expect(ok.headers.get('svc-token-expiration')).toMatch(/^\d{4}-.*Z$/);
  });

  it('an extra route (the /mcp hook) is served before the built-in ones and its errors are answered per H2', async () => {
    const extra = await createDevServer({
      instance: dev,
      routes: {
        '/extra': async (_req, res) => {
          res.end('extra');
        },
        '/extra-fails': async () => {
          throw new NotFoundError('nothing here');
        },
      },
    });
    const base = await extra.listen({ port: 0 });
    try {
      expect(await (await fetch(`${base}/extra`)).text()).toBe('extra');
      expect((await fetch(`${base}/extra-fails`)).status).toBe(404);
      expect((await fetch(`${base}/api/whoami`)).status).toBe(401);
    } finally {
      await extra.close();
    }
  });

  it('T5: a token revoked with the real svc CLI is refused by the running server on its next request', async () => {
    expect((await call('/api/whoami', reader)).status).toBe(200);
    const r = await svc(home, ['token', 'revoke', '--name', 'reader'], { SVC_TOKEN: session });
    expect(r.code).toBe(0);
    const after = await call('/api/whoami', reader);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await after.json()).toMatchObject({ reason: 'revoked' });
  });
});

describe('svc serve (the real process)', { timeout: 120_000 }, () => {
  it('prints its base URL alone on the first stdout line, then "listening on <url>", serves, and stops cleanly on SIGTERM', async () => {
    const { home, cleanup } = await tempHome();
    try {
      await svc(home, ['member', 'set', '-u', 'erin', '-r', 'acme', '--role', 'viewer']);
      await svc(home, ['auth', 'login', '-u', 'erin']);
      const token = (await svc(home, ['token', 'create', '-n', 'ci', '--scope', 'acme/web=repo:read'])).stdout.trim();
      const s = await serve(home);
      try {
        expect(s.firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(s.firstLine).toBe(s.url);
        const ok = await fetch(`${s.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${token}` } });
        expect(ok.status).toBe(200);
        expect((await svc(home, ['token', 'revoke', '-n', 'ci'])).code).toBe(0);
        const refused = await fetch(`${s.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${token}` } });
        expect(refused.status).toBe(401);
        // The log line is written after the answer: give the pipe a moment.
        for (let i = 0; i < 50 && !/ 401 .*reason=revoked/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
        expect(s.stderr()).toMatch(/^GET \/api\/repos\/acme\/web\/head 401 .*reason=revoked$/m);
        expect(s.stderr()).not.toContain(token);
      } finally {
        s.child.kill('SIGTERM');
      }
      expect(await exited(s.child)).toEqual({ code: 0, signal: null });
    } finally {
      await cleanup();
    }
  });

  it('C5: a bad --port is a usage error (exit 2)', async () => {
    const { home, cleanup } = await tempHome();
    try {
      expect((await svc(home, ['serve', '--port', 'http'])).code).toBe(2);
    } finally {
      await cleanup();
    }
  });
});
