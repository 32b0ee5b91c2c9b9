/**
 * The client_credentials grant for service accounts' machine clients on the
 * authorization server (createAuthorizationServer on loopback, memory
 * storage): a client found from its id in the account's record, its secret
 * checked against the stored hash, a token whose `sub` is the account and
 * which has a session record owned by it; refusals for a disabled account, a
 * revoked client, unknown and forged ids, and registrations that try to make
 * such a client.
 *
 * Until the service's `machines` internals exist, the test gives the Auth a
 * lookup over the real store (readServiceAccount + parseMachineClientId).
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../../src/core/vocabulary';
import type { MachineClientRecord, PublicJwk, ServiceAccountRecord } from '../../../src/stores';
import { trustedIssuerFor } from '../../../src/entries/oauth';
import { testAuth, systemTime } from '../../support/auth';
import { startServer, type Running } from '../../support/oauth';

const SECRET = randomBytes(32).toString('base64url');
const hash = (s: string): string => createHash('sha256').update(s).digest('base64url');
const random = (): string => randomBytes(16).toString('base64url');

function client(org: string, name: string, over: Partial<MachineClientRecord> = {}): MachineClientRecord {
  return {
    clientId: `sa~${org}~${name}~${random()}`,
    method: 'client_secret_basic',
    jwks: null,
    secretHash: hash(SECRET),
    createdBy: 'alice',
    createdAt: new Date(),
    revokedAt: null,
    ...over,
  };
}

function account(
  org: string,
  name: string,
  clients: MachineClientRecord[],
  over: Partial<ServiceAccountRecord> = {},
): ServiceAccountRecord {
  const now = new Date();
  return {
    org,
    name,
    role: 'viewer',
    description: null,
    disabled: false,
    clients,
    createdBy: 'alice',
    createdAt: now,
    updatedBy: 'alice',
    updatedAt: now,
    version: 1,
    ...over,
  } as ServiceAccountRecord;
}

async function token(
  base: string,
  clientId: string,
  secret: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...extra }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('client_credentials for machine clients', () => {
  let s: Running;
  const bot = client('acme', 'ci-bot');
  const revoked = client('acme', 'ci-bot', { revokedAt: new Date() });
  const off = client('acme', 'off-bot');
  const other = client('globex', 'ci-bot');
  beforeAll(async () => {
    s = await startServer();
    const store = s.tokens;
    await store.putServiceAccount(account('acme', 'ci-bot', [bot, revoked]));
    await store.putServiceAccount(account('acme', 'off-bot', [off], { disabled: true }));
    await store.putServiceAccount(account('globex', 'ci-bot', [other]));
  });
  afterAll(() => s.close());

  it('a machine client with its secret gets a resource-bound token whose sub is the account, at most an hour, recorded for the account', async () => {
    const r = await token(s.base, bot.clientId, SECRET, { resource: s.base });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const claims = decodeJwt(r.body.access_token as string);
    expect(claims.sub).toBe('sa:acme/ci-bot');
    expect(claims.aud).toBe(s.base);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBeLessThanOrEqual(3_600);
    const chain = await s.tokens.readChain(claims.jti as string);
    expect(chain?.map((r) => r.ownerId)).toEqual(['sa:acme/ci-bot', 'sa:acme/ci-bot']);
    expect(chain?.[1]?.parentId).toBeNull();
  });

  it('metadata lists the grant and both auth methods', async () => {
    const meta = (await (await fetch(`${s.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
    expect(meta.grant_types_supported).toContain('client_credentials');
    expect(meta.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['private_key_jwt', 'client_secret_basic']));
  });

  it('attack: a wrong secret is invalid_client', async () => {
    expect((await token(s.base, bot.clientId, 'not-the-secret')).body.error).toBe('invalid_client');
  });

  it('attack: the stored hash presented as the secret is invalid_client', async () => {
    expect((await token(s.base, bot.clientId, hash(SECRET))).body.error).toBe('invalid_client');
  });

  it('attack: a revoked client, a disabled account, a forged sa~ id are invalid_client', async () => {
    expect((await token(s.base, revoked.clientId, SECRET)).body.error).toBe('invalid_client');
    expect((await token(s.base, off.clientId, SECRET)).body.error).toBe('invalid_client');
    expect((await token(s.base, `sa~acme~ci-bot~${random()}`, SECRET)).body.error).toBe('invalid_client');
    // Another org's client id with this org's account name: found only in its own record.
    expect((await token(s.base, other.clientId.replace('globex', 'acme'), SECRET)).body.error).toBe('invalid_client');
  });

  it('attack: registration cannot make a client_credentials client', async () => {
    const res = await fetch(`${s.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'x',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  it('attack: a registered client cannot use the client_credentials grant', async () => {
    const reg = await fetch(`${s.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'x',
        redirect_uris: ['http://127.0.0.1:9/cb'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    const body = (await reg.json()) as { client_id: string; client_secret: string };
    const r = await token(s.base, body.client_id, body.client_secret);
    expect(r.status).toBe(400);
    // oidc-provider's answer for a grant type the client did not register.
    expect(r.body.error).toBe('invalid_request');
    expect(r.body.error_description).toMatch(/grant type is not allowed/);
    expect(r.body.access_token).toBeUndefined();
  });

  it('the resource accepts the token as the account while its record is live, and refuses it on the next request once revoked', async () => {
    const { auth: mcp } = await testAuth({
      issuer: 'svc-rs',
      tokens: s.tokens,
      now: systemTime,
      trustedIssuers: [trustedIssuerFor({ issuer: s.base, resource: s.base })],
    });
    const r = await token(s.base, bot.clientId, SECRET, { resource: s.base });
    const value = r.body.access_token as string;
    await expect(mcp.authenticate(value)).resolves.toMatchObject({ userId: 'sa:acme/ci-bot' });
    await s.tokens.revoke([decodeJwt(value).jti as string], new Date());
    await expect(mcp.authenticate(value)).rejects.toThrow();
  });

  it('attack: another (unrecorded) trusted issuer cannot name a service account as its subject', async () => {
    const { auth: mcp } = await testAuth({
      issuer: 'svc-rs2',
      tokens: s.tokens,
      now: systemTime,
      trustedIssuers: [{ ...trustedIssuerFor({ issuer: s.base, resource: s.base }), recorded: false }],
    });
    const r = await token(s.base, bot.clientId, SECRET, { resource: s.base });
    await expect(mcp.authenticate(r.body.access_token as string)).rejects.toThrow(/not a user id accepted here/);
  });

  it("scope: what was asked, capped by the account's role at issuance (W2): more is invalid_scope; none asked = all its role allows", async () => {
    const asked = await token(s.base, bot.clientId, SECRET, { resource: s.base, scope: 'repo:read' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect(decodeJwt(asked.body.access_token as string).scope).toBe('repo:read');
    // A viewer account: repo:read and org:read, nothing more.
    const none = await token(s.base, bot.clientId, SECRET, { resource: s.base });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect(
      String(decodeJwt(none.body.access_token as string).scope)
        .split(' ')
        .sort(),
    ).toEqual(['org:read', 'repo:read']);
    const above = await token(s.base, bot.clientId, SECRET, { resource: s.base, scope: 'repo:write' });
    expect(above.status).toBe(400);
    expect(above.body.error).toBe('invalid_scope');
    const bogus = await token(s.base, bot.clientId, SECRET, { resource: s.base, scope: 'admin:everything' });
    expect(
      bogus.body.access_token === undefined || !String(decodeJwt(bogus.body.access_token as string).scope).includes('admin:everything'),
    ).toBe(true);
    expect(PERMISSIONS.length).toBe(7);
  });

  describe('private_key_jwt', () => {
    let key: CryptoKey;
    let jwtClient: MachineClientRecord;
    beforeAll(async () => {
      const pair = await generateKeyPair('ES256');
      key = pair.privateKey;
      jwtClient = client('acme', 'jwt-bot', {
        method: 'private_key_jwt',
        secretHash: null,
        jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), alg: 'ES256' } as PublicJwk] },
      });
      await s.tokens.putServiceAccount(account('acme', 'jwt-bot', [jwtClient]));
    });
    const assertion = (jti = random()): Promise<string> =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(jwtClient.clientId)
        .setSubject(jwtClient.clientId)
        .setAudience(`${s.base}/oauth/token`)
        .setJti(jti)
        .setIssuedAt()
        .setExpirationTime('2m')
        .sign(key);
    const post = async (form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(`${s.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: s.base, ...form }).toString(),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

    it('a signed client assertion gets a token as the account', async () => {
      const r = await post({ client_id: jwtClient.clientId, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion() });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(decodeJwt(r.body.access_token as string).sub).toBe('sa:acme/jwt-bot');
    });

    it('attack: a replayed client assertion is refused', async () => {
      const once = await assertion();
      expect((await post({ client_assertion_type: ASSERTION_TYPE, client_assertion: once })).status).toBe(200);
      expect((await post({ client_assertion_type: ASSERTION_TYPE, client_assertion: once })).body.error).toBe('invalid_client');
    });

    it('attack: a secret for a jwt client is invalid_client', async () => {
      expect((await token(s.base, jwtClient.clientId, SECRET)).body.error).toBe('invalid_client');
    });

    it('attack: an assertion signed by another key is invalid_client', async () => {
      const other = (await generateKeyPair('ES256')).privateKey;
      const forged = await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(jwtClient.clientId)
        .setSubject(jwtClient.clientId)
        .setAudience(`${s.base}/oauth/token`)
        .setJti(random())
        .setIssuedAt()
        .setExpirationTime('2m')
        .sign(other);
      expect((await post({ client_assertion_type: ASSERTION_TYPE, client_assertion: forged })).body.error).toBe('invalid_client');
    });
  });
});
