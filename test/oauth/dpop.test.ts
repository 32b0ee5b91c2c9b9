/**
 * DPoP advertised and bound, then refused by the server's own resources: until
 * `/mcp` and `/api` check DPoP proofs, the authorization server neither
 * advertises DPoP nor binds a token to one. A DPoP header at the token endpoint
 * is ignored: the token is an unbound bearer token, which the resources accept.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevServer, openInstance, type DevInstance } from '../../src/app/dev';
import type { ReferenceServer } from '../../src/app/server';
import { authorizeUrl, Browser, pkce, REDIRECT, register, signInAndConsent } from '../support/oauth';

async function dpopProof(url: string): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return new SignJWT({ htm: 'POST', htu: url, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
    .setIssuedAt()
    .sign(privateKey);
}

describe('DPoP: the metadata and the resources give the same answer', () => {
  let dir: string;
  let dev: DevInstance;
  let server: ReferenceServer;
  let base: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-dpop-'));
    dev = await openInstance({ SVC_HOME: join(dir, 'home') });
    await dev.members.set('alice', 'acme', 'editor');
    server = await createDevServer({ instance: dev });
    base = await server.listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await dev.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('DPoP is not advertised, a DPoP header gives an unbound bearer token, and /mcp and /api accept it', async () => {
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta).not.toHaveProperty('dpop_signing_alg_values_supported');

    for (const resource of [`${base}/mcp`, base]) {
      const { client_id } = await register(base);
      const { verifier, challenge } = pkce();
      const url = authorizeUrl(base, {
        client_id,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'repo:read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource,
      });
      const { url: back } = await signInAndConsent(new Browser(), base, url);
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await dpopProof(`${base}/oauth/token`) },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: new URL(back).searchParams.get('code') as string,
          redirect_uri: REDIRECT,
          client_id,
          code_verifier: verifier,
          resource,
        }).toString(),
      });
      const body = (await res.json()) as { token_type: string; access_token: string };
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
