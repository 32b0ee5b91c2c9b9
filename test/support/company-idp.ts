/**
 * The "company IdP" of the trusted-issuer tests: a real OAuth 2.0 / OpenID
 * Connect server (oidc-provider) on loopback, issuing JWT access tokens for an
 * audience through resource indicators (RFC 8707) and the client credentials
 * grant. Nothing of it is mocked: discovery, JWKS and tokens are its own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** The API identifier the service is registered under at the IdP. */
export const API_AUDIENCE = 'https://api.svc.test';
/** Another API at the same IdP: its tokens must never work at ours. */
export const OTHER_AUDIENCE = 'https://billing.svc.test';
/** The scopes the IdP knows: svc permissions, OIDC's own and one of another API (Auth0 style). */
const SCOPES = 'repo:read repo:write repo:configure repo:admin org:read org:configure org:admin openid profile email read:messages';

export interface CompanyIdp {
  readonly issuer: string;
  /**
   * A JWT access token for `client` (its `sub`), with `scope` when given (else none
   * asked: no `scope` claim), for `resource` (default {@link API_AUDIENCE}).
   */
  token(client: string, options?: { scope?: string; resource?: string }): Promise<string>;
  close(): Promise<void>;
}

const SECRET = 'company-idp-test-secret-0123456789abcdef';

/** Start the IdP with one confidential client per name in `clients` (their ids are the users' ids). */
export async function startCompanyIdp(clients: readonly string[]): Promise<CompanyIdp> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'company-1', alg: 'ES256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: clients.map((client_id) => ({
      client_id,
      client_secret: SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: SCOPES,
      id_token_signed_response_alg: 'ES256',
    })),
    scopes: SCOPES.split(' '),
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: SCOPES,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  server.on('request', provider.callback());

  async function token(client: string, options: { scope?: string; resource?: string } = {}): Promise<string> {
    const body = new URLSearchParams({ grant_type: 'client_credentials', resource: options.resource ?? API_AUDIENCE });
    if (options.scope !== undefined) body.set('scope', options.scope);
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client}:${SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
    });
    const json = (await res.json()) as { access_token?: string; error?: string };
    if (res.status !== 200 || json.access_token === undefined) throw new Error(`company IdP refused: ${res.status} ${json.error}`);
    return json.access_token;
  }

  return {
    issuer,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
