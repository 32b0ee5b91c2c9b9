/**
 * The request target a DPoP proof's `htu` must name (RFC 9449 §4.3), as the server is reached: the
 * `Host` header and path of a node request, compared as text when they are plainly a host and a path
 * and parsed otherwise (case, default port); behind a proxy of `trustProxy` the scheme and host the
 * client used (`X-Forwarded-Proto`, `X-Forwarded-Host`), and never from any other peer.
 */
import { describe, expect, it } from 'vitest';
import { createAuth, type Auth } from '../../src/service';
import { generateKeyRing } from '../../src/tokens';
import { newKey, proof, type TestKey } from '../support/dpop';

interface Setup {
  auth: Auth;
  key: TestKey;
  token: string;
}

async function setup(): Promise<Setup> {
  const auth = createAuth({
    issuer: 'https://svc.test',
    keys: await generateKeyRing(),
    members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
    trustProxy: ['10.0.0.0/8'],
  });
  const key = await newKey();
  const me = await auth.authenticate(await auth.issueSession('alice'));
  const { token } = await auth.client(me).token.create({ name: 'bound', bindKey: key.publicJwk });
  return { auth, key, token };
}

/** A node request as node:http hands it over (only what the guard reads). */
async function nodeRequest(
  s: Setup,
  htu: string,
  at: { host: string; path: string; peer: string; forwarded?: Record<string, string> },
): Promise<object> {
  const headers = {
    host: at.host,
    authorization: `DPoP ${s.token}`,
    dpop: await proof(s.key, { url: htu, token: s.token }),
    ...at.forwarded,
  };
  return { method: 'GET', url: at.path, headers, socket: { remoteAddress: at.peer } };
}

const accepted = async (s: Setup, req: object): Promise<unknown> => (await s.auth.authenticateRequest(req as never)).userId;
const refused = (s: Setup, req: object): Promise<unknown> => s.auth.authenticateRequest(req as never).catch((e: unknown) => e);

describe('the target a proof names', () => {
  it('the Host and path as received, the query ignored; the same target written another way is parsed and matches', async () => {
    const s = await setup();
    const direct = { host: '127.0.0.1:8080', path: '/api/x?page=2', peer: '127.0.0.1' };
    expect(await accepted(s, await nodeRequest(s, 'http://127.0.0.1:8080/api/x', direct))).toBe('alice');
    const upper = { host: 'API.Example.COM', path: '/api/x', peer: '127.0.0.1' };
    expect(await accepted(s, await nodeRequest(s, 'http://api.example.com:80/api/x', upper))).toBe('alice');
  });

  it('attack: a proof for another path, scheme or host is refused', async () => {
    const s = await setup();
    const at = { host: 'api.example.com', path: '/api/x', peer: '127.0.0.1' };
    for (const htu of ['http://api.example.com/api/y', 'https://api.example.com/api/x', 'http://evil.example/api/x']) {
      expect(await refused(s, await nodeRequest(s, htu, at))).toMatchObject({ reason: 'dpop' });
    }
  });

  it('attack: a Host header that is no host is refused, not parsed into a match or a crash', async () => {
    const s = await setup();
    const at = { host: 'evil host/../x', path: '/api/x', peer: '127.0.0.1' };
    expect(await refused(s, await nodeRequest(s, 'http://evil host/../x/api/x', at))).toMatchObject({ reason: 'dpop' });
  });

  it('behind a trusted proxy the client’s scheme and host are the target; from any other peer the forwarded headers are ignored', async () => {
    const s = await setup();
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' };
    const viaProxy = { host: 'internal:8080', path: '/api/x', peer: '10.0.0.5', forwarded };
    expect(await accepted(s, await nodeRequest(s, 'https://api.example.com/api/x', viaProxy))).toBe('alice');
    expect(await refused(s, await nodeRequest(s, 'http://internal:8080/api/x', viaProxy))).toMatchObject({ reason: 'dpop' });
    const spoofed = { ...viaProxy, peer: '203.0.113.9' };
    expect(await refused(s, await nodeRequest(s, 'https://api.example.com/api/x', spoofed))).toMatchObject({ reason: 'dpop' });
    expect(await accepted(s, await nodeRequest(s, 'http://internal:8080/api/x', spoofed))).toBe('alice');
  });
});
