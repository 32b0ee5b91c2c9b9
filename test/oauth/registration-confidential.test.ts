/**
 * Confidential clients at dynamic registration (hosted MCP connectors register
 * with `client_secret_post` or `client_secret_basic`): the secret is shown
 * once, stored hashed, required at the token endpoint, and PKCE is still
 * required. A registration that names no method is a public client with no
 * secret. The MCP SDK's own client registers both ways and signs in with and
 * without `state`.
 */
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  approve,
  authorize,
  type AuthorizeRequest,
  Browser,
  redeem,
  REDIRECT,
  type Running,
  signInAndConsent,
  startServer,
} from '../support/oauth';
import { startDevServer, type DevServer } from '../support/dev-server';

async function registerRaw(base: string, metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Connector', redirect_uris: [REDIRECT], ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Sign in and approve for `clientId` (PKCE, no state, no resource); the request and its code. */
async function approvedCode(base: string, clientId: string): Promise<{ request: AuthorizeRequest; code: string }> {
  const request = authorize(base, clientId, { state: undefined, resource: undefined });
  const { code, url } = await approve(request);
  if (code === null) throw new Error(`no code: ${url}`);
  return { request, code };
}

describe('confidential clients at registration', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('client_secret_post: the secret is shown once, the storage holds only its hash, and the token endpoint requires it', async () => {
    const reg = await registerRaw(s.base, { token_endpoint_auth_method: 'client_secret_post' });
    expect(reg.status).toBe(201);
    const id = reg.body.client_id as string;
    const secret = reg.body.client_secret as string;
    expect(secret.length).toBeGreaterThanOrEqual(43);
    const stored = await s.storage.get('Client', id);
    expect(stored).toBeDefined();
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored?.client_secret).toMatch(/^sha256:/);

    const first = await approvedCode(s.base, id);
    // Without the secret, or with a wrong one, or with the stored hash itself: invalid_client.
    expect(await redeem(first.request, first.code)).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    const second = await approvedCode(s.base, id);
    for (const wrong of [`${secret}x`, stored?.client_secret as string]) {
      expect((await redeem(second.request, second.code, { client_secret: wrong })).status).toBe(401);
    }
    const third = await approvedCode(s.base, id);
    const ok = await redeem(third.request, third.code, { client_secret: secret });
    expect(ok.status).toBe(200);
    expect(decodeJwt(ok.body.access_token as string)).toMatchObject({ aud: `${s.base}/mcp`, sub: 'alice', client_id: id });
  });

  it('client_secret_basic: HTTP Basic with the secret redeems the code; PKCE is still required', async () => {
    const reg = await registerRaw(s.base, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(reg.status).toBe(201);
    const id = reg.body.client_id as string;
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(reg.body.client_secret as string)}`).toString('base64')}`;
    const noPkce = await new Browser().request(
      authorize(s.base, id, { state: 'x', resource: undefined, params: { code_challenge: undefined, code_challenge_method: undefined } })
        .url,
    );
    expect(new URL(noPkce.headers.get('location') as string).searchParams.get('error')).toBe('invalid_request');
    const { request, code } = await approvedCode(s.base, id);
    expect((await redeem(request, code, { client_id: undefined }, { authorization: basic })).status).toBe(200);
  });

  it('a registration that names no method is public: no client_secret is returned, and the client redeems without one', async () => {
    const reg = await registerRaw(s.base, {});
    expect(reg.status).toBe(201);
    expect(reg.body.token_endpoint_auth_method).toBe('none');
    expect(reg.body).not.toHaveProperty('client_secret');
    const id = reg.body.client_id as string;
    expect(await s.storage.get('Client', id)).not.toHaveProperty('client_secret');
    const { request, code } = await approvedCode(s.base, id);
    expect((await redeem(request, code)).status).toBe(200);
  });

  it('SSRF by registration: a jwks_uri, or private_key_jwt (which needs one), is refused at registration', async () => {
    for (const metadata of [
      { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://169.254.169.254/keys' },
      { token_endpoint_auth_method: 'none', jwks_uri: 'http://127.0.0.1:1/keys' },
      { token_endpoint_auth_method: 'client_secret_jwt' },
    ]) {
      expect(await registerRaw(s.base, metadata)).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    }
  });
});

class SdkProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  lastAuthorizationUrl: URL | undefined;
  constructor(
    readonly method: string,
    readonly withState: boolean,
  ) {
    if (withState) this.state = () => 'sdk-state';
  }
  state?: () => string;
  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Hosted connector',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.method,
    };
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.lastAuthorizationUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

describe('the MCP SDK client registers as a confidential or a public client against svc serve, with and without state', () => {
  let dev: DevServer;
  let base: string;
  beforeAll(async () => {
    dev = await startDevServer();
    ({ base } = dev);
  });
  afterAll(() => dev.close());

  for (const [method, withState] of [
    ['client_secret_post', false],
    ['client_secret_basic', true],
    ['none', false],
    ['none', true],
  ] as const) {
    it(`${method}, ${withState ? 'with' : 'without'} state: registers, signs in, redeems and refreshes`, async () => {
      const provider = new SdkProvider(method, withState);
      expect(await auth(provider, { serverUrl: `${base}/mcp`, scope: 'repo:read' })).toBe('REDIRECT');
      expect(provider.info?.client_secret === undefined).toBe(method === 'none');
      const at = provider.lastAuthorizationUrl as URL;
      expect(at.searchParams.has('state')).toBe(withState);
      const { url: back } = await signInAndConsent(new Browser(), base, at.href);
      const code = new URL(back).searchParams.get('code') as string;
      expect(code).toBeTruthy();
      expect(await auth(provider, { serverUrl: `${base}/mcp`, authorizationCode: code })).toBe('AUTHORIZED');
      expect(decodeJwt((provider.saved as OAuthTokens).access_token)).toMatchObject({ aud: `${base}/mcp`, sub: 'alice' });
      expect(await auth(provider, { serverUrl: `${base}/mcp` })).toBe('AUTHORIZED');
    });
  }
});
