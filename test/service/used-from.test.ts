/**
 * Where a token was used from: `lastUsed` and `usedFrom` show the client
 * address and user agent, recorded with the once-per-interval write; behind
 * `trustProxy` the address is the client the trusted proxies name, and a
 * hostile X-Forwarded-For from anyone else is ignored.
 */
import { describe, expect, it } from 'vitest';
import type { TokenStore, TokenUse } from '../../src/stores';
import { MemoryTokenStore } from '../../src/stores';
import { testAuth } from '../support/auth';
import { T0 } from '../support/clock';
import { issuesOf, rejection } from '../support/errors';

/** A node-like request: what authenticateRequest reads of node's IncomingMessage. */
function nodeRequest(token: string, peer: string | undefined, headers: Record<string, string> = {}) {
  return { headers: { authorization: `Bearer ${token}`, ...headers }, socket: { remoteAddress: peer } };
}

async function withToken(extra: Parameters<typeof testAuth>[0] = {}) {
  const s = await testAuth(extra);
  const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
  const api = s.auth.client(me).token;
  const { token } = await api.create({ name: 'ci' });
  return { ...s, api, token };
}

describe('last used: address and user agent', () => {
  it('authenticate(token, origin) records the address and user agent; lastUsed and usedFrom show them', async () => {
    const s = await withToken();
    s.clock.advance(2000);
    await s.auth.authenticate(s.token, { address: '::ffff:203.0.113.7', userAgent: 'curl/8.5.0' });
    await s.auth.flush();
    const info = await s.api.get('ci');
    expect(info.lastUsed).toEqual({ at: new Date(T0 + 2000), address: '203.0.113.7', userAgent: 'curl/8.5.0' });
    expect(info.usedFrom).toEqual([{ address: '203.0.113.7', at: new Date(T0 + 2000), userAgent: 'curl/8.5.0' }]);
    expect(info.lastUsedAt?.getTime()).toBe(T0 + 2000);
  });

  it('the same once-per-interval write: uses within the interval write nothing, the next interval records the next address', async () => {
    const inner = new MemoryTokenStore();
    const writes: TokenUse[][] = [];
    const spy: TokenStore = Object.assign(Object.create(inner) as MemoryTokenStore, {
      recordUse: (uses: readonly TokenUse[], at: Date) => {
        writes.push([...uses]);
        return inner.recordUse(uses, at);
      },
    });
    const s = await withToken({ tokens: spy, lastUsedIntervalMs: 60_000 });
    const id = (await s.auth.authenticate(s.token)).tokenId;
    await s.auth.flush();
    writes.length = 0; // the session's and the first use's writes
    s.clock.advance(60_000);
    for (let i = 0; i < 10; i++) await s.auth.authenticate(s.token, { address: `198.51.100.${i + 1}` });
    await s.auth.flush();
    expect(writes).toEqual([[{ id, address: '198.51.100.1', userAgent: null }]]);
    s.clock.advance(60_000);
    await s.auth.authenticate(s.token, { address: '2001:db8::7' });
    await s.auth.flush();
    expect(writes).toHaveLength(2);
    expect((await s.api.get('ci')).usedFrom.map((u) => u.address)).toEqual(['2001:db8::7', '198.51.100.1']);
  });

  it('the user agent is capped at 256 characters and loses control characters; a header injection stays one harmless string', async () => {
    const s = await withToken();
    await s.auth.authenticate(s.token, { address: '192.0.2.1', userAgent: `evil\r\nSet-Cookie: a=b\u0000\u001b[2J${'x'.repeat(1000)}` });
    await s.auth.flush();
    const ua = (await s.api.get('ci')).lastUsed?.userAgent ?? '';
    expect(ua.length).toBe(256);
    expect(ua).toMatch(/^evilSet-Cookie: a=b\[2Jx+$/);
    expect(ua).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('authenticateRequest reads the socket peer and the User-Agent header', async () => {
    const s = await withToken();
    await s.auth.authenticateRequest(nodeRequest(s.token, '::ffff:192.0.2.9', { 'user-agent': 'svc-cli/1.0' }));
    await s.auth.flush();
    expect((await s.api.get('ci')).lastUsed).toMatchObject({ address: '192.0.2.9', userAgent: 'svc-cli/1.0' });
  });

  it('a fetch Request carries no address: the one handed over is used', async () => {
    const s = await withToken();
    const req = new Request('http://svc.test/', { headers: { authorization: `Bearer ${s.token}`, 'user-agent': 'deno' } });
    await s.auth.authenticateRequest(req, { address: '2001:db8::42' });
    await s.auth.flush();
    expect((await s.api.get('ci')).lastUsed).toMatchObject({ address: '2001:db8::42', userAgent: 'deno' });
  });

  it('hostile X-Forwarded-For from an untrusted peer is ignored: the peer is recorded (spoofing)', async () => {
    const s = await withToken({ trustProxy: ['10.0.0.0/8'] });
    await s.auth.authenticateRequest(nodeRequest(s.token, '203.0.113.66', { 'x-forwarded-for': '192.0.2.1' }));
    await s.auth.flush();
    expect((await s.api.get('ci')).lastUsed?.address).toBe('203.0.113.66');
  });

  it('through a trusted proxy the client it names is recorded; without trustProxy the header is never read', async () => {
    const s = await withToken({ trustProxy: ['10.0.0.0/8', '::1'] });
    await s.auth.authenticateRequest(nodeRequest(s.token, '10.0.0.5', { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' }));
    await s.auth.flush();
    expect((await s.api.get('ci')).lastUsed?.address).toBe('203.0.113.7');
    const plain = await withToken();
    await plain.auth.authenticateRequest(nodeRequest(plain.token, '10.0.0.5', { 'x-forwarded-for': '203.0.113.7' }));
    await plain.auth.flush();
    expect((await plain.api.get('ci')).lastUsed?.address).toBe('10.0.0.5');
  });

  it('allowedIps see the same client: through a trusted proxy its named client, never an address an untrusted peer claims', async () => {
    const s = await testAuth({ trustProxy: ['10.0.0.0/8'] });
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { token } = await s.auth.client(me).token.create({ name: 'office', allowedIps: ['192.0.2.0/24'] });
    expect((await s.auth.authenticateRequest(nodeRequest(token, '10.0.0.5', { 'x-forwarded-for': '192.0.2.7' }))).kind).toBe('pat');
    // An outsider claims to be in the office: ignored, refused.
    const spoofed = await rejection(s.auth.authenticateRequest(nodeRequest(token, '203.0.113.66', { 'x-forwarded-for': '192.0.2.7' })));
    expect(spoofed).toMatchObject({ code: 'forbidden', reason: 'ip' });
    // A client behind the trusted proxy that prepends an office address: the proxy appended the truth.
    const prepended = await rejection(
      s.auth.authenticateRequest(nodeRequest(token, '10.0.0.5', { 'x-forwarded-for': '192.0.2.7, 203.0.113.66' })),
    );
    expect(prepended).toMatchObject({ code: 'forbidden', reason: 'ip' });
  });

  it('trustProxy is checked when the object is built', async () => {
    for (const bad of [['10.1.2.3/8'], ['proxy.internal'], '10.0.0.0/8', [42]]) {
      const err = await rejection(testAuth({ trustProxy: bad as never }));
      expect(issuesOf(err)[0]?.pathText).toMatch(/^trustProxy/);
    }
    await expect(testAuth({ trustProxy: [] })).resolves.toBeDefined();
  });
});
