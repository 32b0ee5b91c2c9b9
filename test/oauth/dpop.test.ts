/**
 * DPoP advertised and bound, then refused by the server's own resources: until
 * `/mcp` and `/api` check DPoP proofs, the authorization server neither
 * advertises DPoP nor binds a token to one. A DPoP header at the token endpoint
 * is ignored: the token is an unbound bearer token, which the resources accept.
 */
import { randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approve, authorize, redeem, register } from '../support/oauth';
import { startDevServer, type DevServer } from '../support/dev-server';

async function dpopProof(url: string): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return new SignJWT({ htm: 'POST', htu: url, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
    .setIssuedAt()
    .sign(privateKey);
}

describe('DPoP: the metadata and the resources give the same answer', () => {
  let dev: DevServer;
  let base: string;
  beforeAll(async () => {
    dev = await startDevServer();
    ({ base } = dev);
  });
  afterAll(() => dev.close());

  it('DPoP is not advertised, a DPoP header gives an unbound bearer token, and /mcp and /api accept it', async () => {
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta).not.toHaveProperty('dpop_signing_alg_values_supported');

    for (const resource of [`${base}/mcp`, base]) {
      const { client_id } = await register(base);
      const request = authorize(base, client_id, { resource, state: undefined });
      const { code } = await approve(request);
      const res = await redeem(request, code as string, {}, { dpop: await dpopProof(`${base}/oauth/token`) });
      const body = res.body as { token_type: string; access_token: string };
      expect(res.status).toBe(200);
      expect(body.token_type).toBe('Bearer');
      expect(decodeJwt(body.access_token)).not.toHaveProperty('cnf');
      const bearer = { authorization: `Bearer ${body.access_token}` };
      const answer =
        resource === base
          ? await fetch(`${base}/api/whoami`, { headers: bearer })
          : await fetch(`${base}/mcp`, {
              method: 'POST',
              headers: { ...bearer, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
              body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
            });
      expect(answer.status).toBe(200);
    }
  });
});
