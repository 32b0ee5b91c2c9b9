/**
 * The credential revocation endpoint over real loopback HTTP, in its node:http
 * form and its fetch form (@hono/node-server), on the three stores: a token
 * reported there fails on its next request, its descendants too, and its
 * owner gets one `token.leaked` event; the answer is the same whatever was
 * reported; every refusal is typed.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import { credentialRevocationHandler, type CredentialRevocationOptions } from '../../src/leaks';
import { MemoryTokenStore, type TokenStore } from '../../src/stores';
import { caught, rejection } from '../support/errors';
import { dropStores, tokenStores } from '../support/token-stores';
import { fetchServer, leakedEvents, nodeServer, world, type Running, type World } from './servers';

const STORES = tokenStores('test/leaks/revocation.test.ts');
afterAll(dropStores);

type Form = 'node' | 'fetch';
const FORMS: Form[] = ['node', 'fetch'];

async function start(w: World, form: Form, options: CredentialRevocationOptions = {}): Promise<Running> {
  const h = credentialRevocationHandler(w.auth, options);
  return form === 'node' ? nodeServer((req, res) => h.node(req, res)) : fetchServer((req) => h.fetch(req));
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${url}/api/credentials/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function reason(p: Promise<unknown>): Promise<string> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(AuthenticationError);
  return (err as AuthenticationError).reason;
}

describe.each(STORES)('the credential revocation endpoint on the %s store', (_name, makeStore) => {
  it.each(FORMS)(
    '%s form: a reported PAT and its child fail on their next request; one token.leaked; 202 whatever was sent',
    async (form) => {
      const w = await world(await makeStore());
      const server = await start(w, form);
      try {
        const me = await w.auth.principalFor('alice');
        const parent = await w.auth.client(me).token.create({ name: 'leaked' });
        const child = await w.auth.client(await w.auth.authenticate(parent.token)).token.create({ name: 'leaked-child' });
        const keep = await w.auth.client(me).token.create({ name: 'keep' });
        const res = await post(server.url, { credentials: [parent.token, 'junk', parent.token] });
        expect(res.status).toBe(202);
        expect(await res.json()).toEqual({ status: 'accepted' });
        expect(await reason(w.auth.authenticate(parent.token))).toBe('revoked');
        expect(await reason(w.auth.authenticate(child.token))).toBe('revoked');
        expect((await w.auth.authenticate(keep.token)).tokenName).toBe('keep');
        await w.auth.flush();
        const events = leakedEvents(w.events);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ source: 'http', url: null, token: { id: parent.info.id, ownerId: 'alice', name: 'leaked' } });
        expect(events[0]?.revokedIds).toEqual([parent.info.id, child.info.id]);
        await Promise.all(server.calls);
      } finally {
        await server.close();
      }
    },
  );
});

describe.each(FORMS)('the credential revocation endpoint, %s form', (form) => {
  let w: World;
  let server: Running;
  const fresh = async (options: CredentialRevocationOptions = {}, store: TokenStore = new MemoryTokenStore()): Promise<void> => {
    await server?.close();
    w = await world(store);
    server = await start(w, form, options);
  };
  afterAll(async () => {
    await server?.close();
    // No handler promise ever rejected.
    await Promise.all(server?.calls ?? []);
  });

  it('is no oracle: an active token, an unknown one, a revoked one and junk get the same status, headers and body', async () => {
    await fresh();
    const me = await w.auth.principalFor('alice');
    const active = (await w.auth.client(me).token.create({ name: 'a' })).token;
    const gone = (await w.auth.client(me).token.create({ name: 'g' })).token;
    await w.auth.client(me).token.revoke('g');
    const answers = [];
    for (const list of [[active], [gone], ['eyJhbGciOiJFZERTQSJ9.e30.sig'], [], [active]]) {
      const res = await post(server.url, { credentials: list });
      const headers = [...res.headers.entries()].filter(([k]) => k !== 'date' && k !== 'keep-alive' && k !== 'connection');
      answers.push({ status: res.status, headers, body: await res.text() });
    }
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect(answers[0]?.status).toBe(202);
  });

  it('needs no credential and ignores one: the Authorization header is never read', async () => {
    await fresh();
    const me = await w.auth.principalFor('alice');
    const { token } = await w.auth.client(me).token.create({ name: 'x' });
    const res = await post(server.url, { credentials: [token] }, { authorization: 'Bearer nonsense' });
    expect(res.status).toBe(202);
    expect(await reason(w.auth.authenticate(token))).toBe('revoked');
  });

  it.each([
    ['GET', undefined, 405, 'method'],
    ['PUT', '{"credentials":[]}', 405, 'method'],
  ])('method %s is 405 with Allow: POST', async (method, body, status, path) => {
    await fresh();
    const res = await fetch(`${server.url}/api/credentials/revoke`, { method, ...(body === undefined ? {} : { body }) });
    expect(res.status).toBe(status);
    expect(res.headers.get('allow')).toBe('POST');
    const json = (await res.json()) as { error: string; issues: { pathText: string }[] };
    expect(json.error).toBe('validation');
    expect(json.issues[0]?.pathText).toBe(path);
  });

  it.each([
    ['text/plain', 415],
    ['application/x-www-form-urlencoded', 415],
    ['application/json; charset=utf-16', 415],
    ['application/json; charset=UTF-8', 202],
  ])('content type %s: %i', async (type, status) => {
    await fresh();
    const res = await post(server.url, { credentials: [] }, { 'content-type': type });
    expect(res.status).toBe(status);
  });

  it.each([
    ['not JSON', '{credentials: []}', 'body'],
    ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]).toString('latin1'), 'body'],
    ['an array', '[]', 'body'],
    ['no credentials', '{}', 'body.credentials'],
    ['credentials as a string', '{"credentials":"eyJ"}', 'body.credentials'],
    ['a non-string credential', '{"credentials":["a",2]}', 'body.credentials[1]'],
    ['1 001 credentials', JSON.stringify({ credentials: Array.from({ length: 1001 }, () => 'x') }), 'body.credentials'],
    ['an unknown key', '{"credentials":[],"admin":true}', 'body.admin'],
    ['a __proto__ key (prototype pollution)', '{"credentials":[],"__proto__":{"polluted":true}}', 'body.__proto__'],
  ])('a body with %s is 400 in the H2 shape', async (_what, body, path) => {
    await fresh();
    const res = await post(server.url, body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: string; issues: { pathText: string }[] };
    expect(json.error).toBe('validation');
    expect(json.issues.map((i) => i.pathText)).toContain(path);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('memory exhaustion: a body over maxBodyBytes is 413, declared or streamed', async () => {
    await fresh({ maxBodyBytes: 1024 });
    const big = JSON.stringify({ credentials: ['x'.repeat(2000)] });
    expect((await post(server.url, big)).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 64; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        c.close();
      },
    });
    const res = await fetch(`${server.url}/api/credentials/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe('validation');
  });

  it('rate limit: the third request of an address within the window is 429 with Retry-After', async () => {
    await fresh({ rateLimit: { requests: 2, windowMs: 60_000 } });
    expect((await post(server.url, { credentials: [] })).status).toBe(202);
    expect((await post(server.url, { credentials: [] })).status).toBe(202);
    const res = await post(server.url, { credentials: [] });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toMatchObject({ error: 'unavailable', reason: 'rate_limited' });
  });

  it('a store that fails is 503 (send it again), never 202; onError hears it', async () => {
    const inner = new MemoryTokenStore();
    const seen: unknown[] = [];
    let down = false;
    const flaky: TokenStore = {
      insert: (r, now) => inner.insert(r, now),
      readChain: (id) => (down ? Promise.reject(new Error('db down')) : inner.readChain(id)),
      listByOwner: (o) => inner.listByOwner(o),
      revoke: (ids, at) => inner.revoke(ids, at),
    };
    await fresh({ onError: (e) => seen.push(e) }, flaky);
    const { token } = await w.auth.client(await w.auth.principalFor('alice')).token.create({ name: 'x' });
    down = true;
    const res = await post(server.url, { credentials: [token] });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'unavailable' });
    expect(seen).toHaveLength(1);
    down = false;
    expect((await w.auth.authenticate(token)).tokenName).toBe('x');
  });
});

describe('the credential revocation endpoint: options and frameworks', () => {
  it.each([
    ['an auth without reportLeaked', {}, undefined, 'auth'],
    ['an unknown option', undefined, { sauce: 1 }, 'options.sauce'],
    ['maxBodyBytes 0', undefined, { maxBodyBytes: 0 }, 'options.maxBodyBytes'],
    ['rateLimit.requests 0', undefined, { rateLimit: { requests: 0 } }, 'options.rateLimit.requests'],
    ['rateLimit.window', undefined, { rateLimit: { window: 1 } }, 'options.rateLimit.window'],
    ['a source with spaces', undefined, { source: 'a b' }, 'options.source'],
    ['onError not a function', undefined, { onError: 'log' }, 'options.onError'],
  ])('%s is refused when the handler is built', async (_what, auth, options, path) => {
    const w = await world(new MemoryTokenStore());
    const err = caught(() => credentialRevocationHandler((auth ?? w.auth) as never, options as never));
    expect((err as { issues: { pathText: string }[] }).issues.map((i) => i.pathText)).toContain(path);
  });

  it('behind Express with express.json(): the parsed body is passed, the token revoked', async () => {
    const w = await world(new MemoryTokenStore());
    const h = credentialRevocationHandler(w.auth);
    const app = express();
    app.post('/api/credentials/revoke', express.json(), h.node);
    const server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { token } = await w.auth.client(await w.auth.principalFor('alice')).token.create({ name: 'x' });
      expect((await post(url, { credentials: [token] })).status).toBe(202);
      expect(await reason(w.auth.authenticate(token))).toBe('revoked');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a body read before the handler (and not left on req.body) is a 500 that onError hears, not a silent refusal', async () => {
    const w = await world(new MemoryTokenStore());
    const seen: unknown[] = [];
    const h = credentialRevocationHandler(w.auth, { onError: (e) => seen.push(e) });
    const app = express();
    // A middleware that drains the body and keeps it to itself.
    const drain = (req: IncomingMessage, _res: unknown, next: () => void): void => {
      req.on('data', () => undefined).once('end', () => next());
    };
    app.post('/api/credentials/revoke', drain, h.node);
    const server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await post(url, { credentials: [] });
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: 'internal', message: 'internal error' });
      expect(String(seen[0])).toContain('body parser');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('the fetch form counts each caller under the address it is given', async () => {
    const w = await world(new MemoryTokenStore());
    const h = credentialRevocationHandler(w.auth, { rateLimit: { requests: 1, windowMs: 60_000 } });
    const req = (): Request =>
      new Request('http://x/api/credentials/revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"credentials":[]}',
      });
    expect((await h.fetch(req(), { clientAddress: '203.0.113.7' })).status).toBe(202);
    expect((await h.fetch(req(), { clientAddress: '203.0.113.7' })).status).toBe(429);
    expect((await h.fetch(req(), { clientAddress: '203.0.113.8' })).status).toBe(202);
    // One subscriber's /64 is one client.
    expect((await h.fetch(req(), { clientAddress: '2001:db8:1:2::1' })).status).toBe(202);
    expect((await h.fetch(req(), { clientAddress: '2001:db8:1:2:ffff::9' })).status).toBe(429);
  });
});
