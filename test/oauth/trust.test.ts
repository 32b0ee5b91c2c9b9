import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemTime, testAuth } from '../support/auth';
import { ValidationError } from '../../src/errors';
import { trustedIssuerFor } from '../../src/entries/oauth';
import { codeFlow, startServer, type Running } from '../support/oauth';

describe('trustedIssuerFor: svc-auth accepts the server’s tokens, per resource', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('an Auth trusting the server for <base>/mcp accepts its token as alice’s session, narrowed by the approved scope', async () => {
    const { auth: mcpAuth } = await testAuth({
      issuer: 'svc-trust',
      roles: { alice: { orgs: { acme: 'owner' } } },
      tokens: s.tokens, // where the server records its grants and access tokens
      now: systemTime,
      trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: `${s.base}/mcp` })],
    });
    const { tokens } = await codeFlow(s.base, { scope: 'repo:read' });
    const p = await mcpAuth.authenticate(tokens.access_token as string);
    expect(p).toMatchObject({ kind: 'session', userId: 'alice' });
    expect(mcpAuth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    // alice owns acme, but she approved repo:read only.
    expect(mcpAuth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    // A token for the API is not one for /mcp.
    const api = await codeFlow(s.base, { resource: `${s.base}/` });
    await expect(mcpAuth.authenticate(api.tokens.access_token as string)).rejects.toMatchObject({ reason: 'audience' });
  });

  it('a token without its records (another token store: another service, or records lost) is refused: sign in again', async () => {
    // testAuth's own memory store: not the one the server records in.
    const { auth: elsewhere } = await testAuth({
      issuer: 'svc-trust',
      everyone: { orgs: { acme: 'owner' } },
      now: systemTime,
      trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: `${s.base}/mcp` })],
    });
    const { tokens } = await codeFlow(s.base);
    await expect(elsewhere.authenticate(tokens.access_token as string)).rejects.toMatchObject({
      reason: 'unknown',
      message: /sign in again/,
    });
  });

  it('names the JWKS and the one algorithm (no discovery), and reads <resource>/ as <resource>', () => {
    expect(trustedIssuerFor({ issuer: 'https://svc.example', resource: 'https://svc.example/' })).toEqual({
      issuer: 'https://svc.example',
      audience: 'https://svc.example',
      jwksUri: 'https://svc.example/oauth/jwks',
      algorithms: ['EdDSA'],
      recorded: true,
    });
    expect(() => trustedIssuerFor({ issuer: 'https://svc.example/', resource: 'https://svc.example' })).toThrow(ValidationError);
    expect(() => trustedIssuerFor({ issuer: 'https://svc.example', resource: 'https://other.example/mcp' })).toThrow(ValidationError);
  });
});
