/**
 * allowedIps and last-used addresses in every adapter, over real loopback
 * HTTP: clients bind to 127.0.0.2, 127.0.0.3 and 127.0.0.9 (all loopback on
 * Linux), servers listen dual-stack (so IPv4 peers arrive IPv4-mapped), and
 * 127.0.0.9 plays the trusted proxy. A limited token is 403 (reason `ip`)
 * from elsewhere, a hostile X-Forwarded-For from an untrusted peer changes
 * nothing, the client a trusted proxy names is believed, and last used shows
 * the address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, errorAnswer, withAuth, type Auth, type AuthEvent } from 'svc-auth';
import { svcAuth as expressAuth } from 'svc-auth/express';
import { adapters, get } from '../support/adapters';
import { testAuth } from '../support/auth';

describe.each(adapters)('client address in %s', (_name, start) => {
  let auth: Auth;
  const events: AuthEvent[] = [];
  let office = '';
  let plain = '';
  let server: { port: number; stop: () => Promise<void> };

  beforeAll(async () => {
    ({ auth } = await testAuth({ everyone: { orgs: { acme: 'editor' } }, trustProxy: ['127.0.0.9'], onEvent: (e) => void events.push(e) }));
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    office = (await api.create({ name: 'office', allowedIps: ['127.0.0.2'] })).token;
    plain = (await api.create({ name: 'plain' })).token;
    server = await start(auth);
  });

  afterAll(async () => {
    await server.stop();
  });

  it('a limited token works from its address and is 403 (reason ip) from another', async () => {
    expect(await get(server.port, '127.0.0.2', office)).toEqual({ status: 200, body: { user: 'alice' } });
    const refused = await get(server.port, '127.0.0.3', office);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'forbidden', reason: 'ip' });
  });

  it('hostile X-Forwarded-For from an untrusted peer is ignored (spoofing)', async () => {
    const spoofed = await get(server.port, '127.0.0.3', office, { 'x-forwarded-for': '127.0.0.2' });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.reason).toBe('ip');
  });

  it('through the trusted proxy the client it names is believed: the right-most untrusted hop', async () => {
    expect((await get(server.port, '127.0.0.9', office, { 'x-forwarded-for': '127.0.0.2' })).status).toBe(200);
    // The client put a lie first; the proxy appended the truth.
    expect((await get(server.port, '127.0.0.9', office, { 'x-forwarded-for': '127.0.0.2, 127.0.0.3' })).body.reason).toBe('ip');
  });

  it('last used shows the address and user agent, through the trusted proxy and not through an untrusted one', async () => {
    await get(server.port, '127.0.0.9', plain, { 'x-forwarded-for': '203.0.113.7' });
    await auth.flush();
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    expect((await api.get('plain')).lastUsed).toMatchObject({ address: '203.0.113.7', userAgent: 'agent-127.0.0.9' });
    // The next use is recorded one interval (a minute) later; a fresh token shows the untrusted case at once.
    const fresh = (await api.create({ name: `spoof${Date.now()}` })).token;
    await get(server.port, '127.0.0.3', fresh, { 'x-forwarded-for': '203.0.113.7' });
    await auth.flush();
    const [info] = (await api.list()).filter((t) => t.name.startsWith('spoof'));
    expect(info?.lastUsed).toMatchObject({ address: '127.0.0.3', userAgent: 'agent-127.0.0.3' });
    expect(events.some((e) => e.type === 'auth.failed' && e.reason === 'ip')).toBe(true);
  });
});

describe('clientAddress option and the ip answer', () => {
  it('errorAnswer: ForbiddenError reason ip is a 403 with the reason and no insufficient_scope challenge', () => {
    const answer = errorAnswer(new ForbiddenError('this token may not be used from here', { reason: 'ip', tokenId: 'x' }));
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: 'forbidden', message: 'this token may not be used from here', reason: 'ip' });
    expect(answer.headers['www-authenticate']).toBeUndefined();
    expect(errorAnswer(new ForbiddenError('no')).headers['www-authenticate']).toContain('insufficient_scope');
  });

  it('a clientAddress that throws or gives nothing means an unknown address: a limited token is refused, never a crash', async () => {
    const { auth } = await testAuth({ everyone: {} });
    const api = auth.client(await auth.authenticate(await auth.issueSession('alice'))).token;
    const { token } = await api.create({ name: 'office', allowedIps: ['127.0.0.2'] });
    const { token: free } = await api.create({ name: 'free' });
    const req = (t: string): Request => new Request('http://x/', { headers: { authorization: `Bearer ${t}` } });
    for (const clientAddress of [
      () => undefined,
      () => 'nonsense',
      (): string => {
        throw new Error('boom');
      },
    ]) {
      const h = withAuth(auth, () => new Response('ok'), { clientAddress });
      expect((await h(req(token))).status).toBe(403);
      expect((await h(req(free))).status).toBe(200);
    }
    expect((await withAuth(auth, () => new Response('ok'), { clientAddress: () => '127.0.0.2' })(req(token))).status).toBe(200);
    expect(() => withAuth(auth, () => new Response('ok'), { clientAddress: 'x' as never })).toThrow(/clientAddress/);
    expect(() => expressAuth(auth, { clientAddress: 1 as never })).toThrow(/clientAddress/);
  });
});
