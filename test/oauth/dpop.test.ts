/**
 * DPoP end to end against `svc serve` (RFC 9449): the authorization server binds a token to the key of
 * the proof sent to its token endpoint (cnf.jkt), and /api and /mcp take that token only with the
 * DPoP scheme and a fresh proof by that key for that very request. Each hostile case is refused.
 */
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approve, authorize, redeem, register, token as tokenRequest } from '../support/oauth';
import { startDevServer, type DevServer } from '../support/dev-server';

interface Holder {
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

async function holder(alg = 'ES256'): Promise<Holder> {
  const { publicKey, privateKey } = await generateKeyPair(alg);
  return { privateKey, jwk: await exportJWK(publicKey) };
}

function ath(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('base64url');
}

interface ProofShape {
  htm: string;
  htu: string;
  accessToken?: string;
  iat?: number;
  jti?: string;
  header?: Record<string, unknown>;
  alg?: string;
}

async function proof(h: Holder, p: ProofShape): Promise<string> {
  const claims: Record<string, unknown> = { htm: p.htm, htu: p.htu, jti: p.jti ?? randomUUID() };
  if (p.accessToken !== undefined) claims.ath = ath(p.accessToken);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: p.alg ?? 'ES256', typ: 'dpop+jwt', jwk: h.jwk, ...p.header })
    .setIssuedAt(p.iat ?? Math.floor(Date.now() / 1000))
    .sign(h.privateKey);
}

describe('DPoP: svc serve binds tokens and its resources check the proofs', () => {
  let dev: DevServer;
  let base: string;
  let key: Holder;
  let accessToken: string;
  let refreshToken: string;
  let whoami: string;

  beforeAll(async () => {
    dev = await startDevServer();
    ({ base } = dev);
    whoami = `${base}/api/whoami`;
    key = await holder();
    const { client_id } = await register(base);
    const request = authorize(base, client_id, { resource: base, state: undefined, scope: 'repo:read offline_access' });
    const { code } = await approve(request);
    const res = await redeem(request, code as string, {}, { dpop: await proof(key, { htm: 'POST', htu: `${base}/oauth/token` }) });
    expect(res.status).toBe(200);
    const body = res.body as { token_type: string; access_token: string; refresh_token?: string };
    expect(body.token_type).toBe('DPoP');
    accessToken = body.access_token;
    refreshToken = body.refresh_token ?? '';
  });
  afterAll(() => dev.close());

  const get = (headers: Record<string, string>): Promise<Response> => fetch(whoami, { headers });

  it('the two metadata documents advertise the same algorithms, and the token is bound to the key', async () => {
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    const pr = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(as.dpop_signing_alg_values_supported).toEqual(pr.dpop_signing_alg_values_supported);
    expect(decodeJwt(accessToken).cnf).toEqual({ jkt: await calculateJwkThumbprint(key.jwk) });
  });

  it('a bound token with a fresh proof by its key is accepted at /api', async () => {
    const ok = await get({ authorization: `DPoP ${accessToken}`, dpop: await proof(key, { htm: 'GET', htu: whoami, accessToken }) });
    expect(ok.status).toBe(200);
  });

  it('/mcp: a token bound for it lists tools with its proof, and is refused as Bearer with the DPoP challenge and the metadata', async () => {
    const mcp = `${base}/mcp`;
    const { client_id } = await register(base);
    const request = authorize(base, client_id, { resource: mcp, state: undefined });
    const { code } = await approve(request);
    const res = await redeem(request, code as string, {}, { dpop: await proof(key, { htm: 'POST', htu: `${base}/oauth/token` }) });
    const bound = (res.body as { access_token: string }).access_token;
    const call = async (headers: Record<string, string>): Promise<Response> =>
      fetch(mcp, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
    const ok = await call({ authorization: `DPoP ${bound}`, dpop: await proof(key, { htm: 'POST', htu: mcp, accessToken: bound }) });
    expect([ok.status, ok.headers.get('www-authenticate')]).toEqual([200, null]);
    expect(await ok.text()).toContain('"tools"');
    const asBearer = await call({ authorization: `Bearer ${bound}` });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP realm="svc", algs="[^"]+", error="invalid_token".*resource_metadata="/);
    const otherKey = await call({
      authorization: `DPoP ${bound}`,
      dpop: await proof(await holder(), { htm: 'POST', htu: mcp, accessToken: bound }),
    });
    expect(otherKey.headers.get('www-authenticate')).toContain('error="invalid_dpop_proof"');
  });

  it('bound token sent as a Bearer token: refused, invalid_token with the DPoP challenge', async () => {
    const res = await get({ authorization: `Bearer ${accessToken}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP realm="svc", algs="[^"]+", error="invalid_token"/);
    expect(((await res.json()) as { reason: string }).reason).toBe('bound');
  });

  async function refusedProof(headers: Record<string, string>, url = whoami, method = 'GET'): Promise<void> {
    const res = await fetch(url, { method, headers: { authorization: `DPoP ${accessToken}`, ...headers } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_dpop_proof"');
    expect(((await res.json()) as { reason: string }).reason).toBe('dpop');
  }

  it('proof signed by another key than the token is bound to: refused', async () => {
    await refusedProof({ dpop: await proof(await holder(), { htm: 'GET', htu: whoami, accessToken }) });
  });

  it('replayed proof: the second use is refused', async () => {
    const once = await proof(key, { htm: 'GET', htu: whoami, accessToken });
    expect((await get({ authorization: `DPoP ${accessToken}`, dpop: once })).status).toBe(200);
    await refusedProof({ dpop: once });
  });

  it('proof for another URL (htu): refused', async () => {
    await refusedProof({ dpop: await proof(key, { htm: 'GET', htu: `${base}/api/tokens`, accessToken }) });
  });

  it('proof for another method (htm): refused', async () => {
    await refusedProof({ dpop: await proof(key, { htm: 'POST', htu: whoami, accessToken }) });
  });

  it('stale proof (iat older than the window): refused', async () => {
    await refusedProof({ dpop: await proof(key, { htm: 'GET', htu: whoami, accessToken, iat: Math.floor(Date.now() / 1000) - 600 }) });
  });

  it('proof without ath (not tied to the token): refused', async () => {
    await refusedProof({ dpop: await proof(key, { htm: 'GET', htu: whoami }) });
  });

  it('proof whose jwk carries the private key: refused', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const leaky = await exportJWK(privateKey);
    await refusedProof({ dpop: await proof({ privateKey, jwk: leaky }, { htm: 'GET', htu: whoami, accessToken }) });
  });

  it('proof with alg none or HS256: refused', async () => {
    const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = { htm: 'GET', htu: whoami, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ath: ath(accessToken) };
    const none = `${b64({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk })}.${b64(claims)}.`;
    await refusedProof({ dpop: none });
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.jwk }).sign(new Uint8Array(32));
    await refusedProof({ dpop: hs });
  });

  it('two DPoP headers: refused', async () => {
    const a = await proof(key, { htm: 'GET', htu: whoami, accessToken });
    const b = await proof(key, { htm: 'GET', htu: whoami, accessToken });
    const headers = new Headers({ authorization: `DPoP ${accessToken}` });
    headers.append('dpop', a);
    headers.append('dpop', b);
    const res = await fetch(whoami, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('invalid_dpop_proof');
  });

  it('the DPoP scheme with no proof: refused', async () => {
    await refusedProof({});
  });

  it('the refresh token is bound too: refreshed with a proof by the same key, refused without', async () => {
    expect(refreshToken).not.toBe('');
    const form = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: decodeJwt(accessToken).client_id as string };
    const without = await tokenRequest(base, form, {});
    expect(without.status).toBe(400);
    const other = await tokenRequest(base, form, { dpop: await proof(await holder(), { htm: 'POST', htu: `${base}/oauth/token` }) });
    expect(other.status).toBe(400);
    const same = await tokenRequest(base, form, { dpop: await proof(key, { htm: 'POST', htu: `${base}/oauth/token` }) });
    expect(same.status).toBe(200);
    const renewed = same.body as { access_token: string; token_type: string };
    expect(renewed.token_type).toBe('DPoP');
    const ok = await get({
      authorization: `DPoP ${renewed.access_token}`,
      dpop: await proof(key, { htm: 'GET', htu: whoami, accessToken: renewed.access_token }),
    });
    expect(ok.status).toBe(200);
  });
});
