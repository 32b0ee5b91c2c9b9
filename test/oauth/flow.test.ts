import { decodeJwt, decodeProtectedHeader, createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/core/vocabulary';
import { approve, authorize, Browser, codeFlow, redeem, REDIRECT, register, type Running, startServer, token } from '../support/oauth';

describe('the authorization server on node:http: metadata, DCR, code flow with PKCE, refresh, revocation', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('serves RFC 8414 and OIDC metadata with the fields MCP clients read', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await fetch(`${s.base}${path}`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc).toMatchObject({
        issuer: s.base,
        authorization_endpoint: `${s.base}/oauth/authorize`,
        token_endpoint: `${s.base}/oauth/token`,
        registration_endpoint: `${s.base}/oauth/register`,
        device_authorization_endpoint: `${s.base}/oauth/device_authorization`,
        revocation_endpoint: `${s.base}/oauth/revoke`,
        jwks_uri: `${s.base}/oauth/jwks`,
        code_challenge_methods_supported: ['S256'],
        client_id_metadata_document_supported: true,
        scopes_supported: [...PERMISSIONS],
        response_types_supported: ['code'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      });
      // DPoP: the algorithms the resources check proofs with (dpop.test.ts).
      expect(doc.dpop_signing_alg_values_supported).toEqual(['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256']);
      expect(doc.grant_types_supported).toEqual(
        expect.arrayContaining(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']),
      );
      expect(doc).not.toHaveProperty('pushed_authorization_request_endpoint');
      expect(doc).not.toHaveProperty('userinfo_endpoint');
    }
    expect(s.oauth.metadataUrl).toBe(`${s.base}/.well-known/oauth-authorization-server`);
  });

  it('registers a public client (RFC 7591) and a confidential one, whose secret is shown once', async () => {
    const client = await register(s.base);
    expect(client).toMatchObject({ token_endpoint_auth_method: 'none', redirect_uris: [REDIRECT], client_name: 'Test Client' });
    expect(client).not.toHaveProperty('client_secret');
    const res = await fetch(`${s.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', client_secret: expect.any(String) });
  });

  it('runs the code flow: an at+jwt access token for the resource, with the approved permissions as its scope', async () => {
    const { tokens } = await codeFlow(s.base, { scope: 'repo:read repo:write' });
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'repo:read repo:write' });
    expect(typeof tokens.refresh_token).toBe('string');
    const at = tokens.access_token as string;
    expect(decodeProtectedHeader(at)).toMatchObject({ typ: 'at+jwt', alg: 'EdDSA' });
    const jwks = createRemoteJWKSet(new URL(`${s.base}/oauth/jwks`));
    const { payload } = await jwtVerify(at, jwks, { issuer: s.base, audience: `${s.base}/mcp`, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: 'alice', scope: 'repo:read repo:write' });
    expect((payload.exp as number) - (payload.iat as number)).toBeLessThanOrEqual(3600);
  });

  it('a request naming no svc permission asks for all seven, and the token carries what was approved', async () => {
    const { tokens } = await codeFlow(s.base, { scope: 'offline_access' });
    expect(String(tokens.scope).split(' ')).toEqual(expect.arrayContaining([...PERMISSIONS]));
  });

  it('binds aud to the resource: <base>/mcp, and <base> for the API (asked as <base>/ by the MCP SDK)', async () => {
    const mcp = await codeFlow(s.base, { resource: `${s.base}/mcp` });
    expect(decodeJwt(mcp.tokens.access_token as string).aud).toBe(`${s.base}/mcp`);
    const api = await codeFlow(s.base, { resource: `${s.base}/` });
    expect(decodeJwt(api.tokens.access_token as string).aud).toBe(s.base);
    const bare = await codeFlow(s.base, { resource: s.base });
    expect(decodeJwt(bare.tokens.access_token as string).aud).toBe(s.base);
  });

  it('a code asked for <base>/ may be redeemed naming <base>, and the other way round: one resource', async () => {
    const client = await register(s.base);
    for (const [asked, redeemed] of [
      [`${s.base}/`, s.base],
      [s.base, `${s.base}/`],
    ] as const) {
      const request = authorize(s.base, client.client_id, { resource: asked });
      const { code } = await approve(request);
      const r = await redeem(request, code as string, { resource: redeemed });
      expect(r.status).toBe(200);
      expect(decodeJwt(r.body.access_token as string).aud).toBe(s.base);
    }
  });

  it('refuses a resource that is not its own: invalid_target', async () => {
    const client = await register(s.base);
    const { url } = authorize(s.base, client.client_id, { state: 'x', resource: 'https://elsewhere.example/api' });
    const res = await new Browser().request(url);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location') as string);
    expect(back.searchParams.get('error')).toBe('invalid_target');
    expect(back.searchParams.get('state')).toBe('x');
  });

  it('rotates refresh tokens on every use; a reused refresh token fails and ends the grant', async () => {
    const { tokens, clientId } = await codeFlow(s.base);
    const first = tokens.refresh_token as string;
    const r1 = await token(s.base, { grant_type: 'refresh_token', refresh_token: first, client_id: clientId });
    expect(r1.status).toBe(200);
    const second = r1.body.refresh_token as string;
    expect(second).not.toBe(first);
    expect(decodeJwt(r1.body.access_token as string).aud).toBe(`${s.base}/mcp`);
    const replay = await token(s.base, { grant_type: 'refresh_token', refresh_token: first, client_id: clientId });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The replay revoked the whole grant: the rotated token is dead too.
    const after = await token(s.base, { grant_type: 'refresh_token', refresh_token: second, client_id: clientId });
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('revokes a refresh token (RFC 7009): 200, and the token no longer refreshes', async () => {
    const { tokens, clientId } = await codeFlow(s.base);
    const res = await fetch(`${s.base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.refresh_token as string,
        token_type_hint: 'refresh_token',
        client_id: clientId,
      }).toString(),
    });
    expect(res.status).toBe(200);
    const after = await token(s.base, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('answers a JWT access token at the revocation endpoint with unsupported_token_type (RFC 7009 2.2.1)', async () => {
    const { tokens, clientId } = await codeFlow(s.base);
    const res = await fetch(`${s.base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token as string, client_id: clientId }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'unsupported_token_type' });
  });

  it('a denial on the consent page returns error=access_denied with the state', async () => {
    const client = await register(s.base);
    const { url: back } = await approve(authorize(s.base, client.client_id, { state: 'deny-me' }), { decision: 'deny' });
    const params = new URL(back).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('deny-me');
    expect(params.get('code')).toBeNull();
  });

  it('is mounted beside other routes: paths that are not its own are left to the server', async () => {
    const res = await fetch(`${s.base}/api/whoami`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('not here');
    expect(s.oauth.owns('/oauth/token')).toBe(true);
    expect(s.oauth.owns('/.well-known/oauth-protected-resource/mcp')).toBe(false);
  });
});
