/**
 * The RFC 7523 JWT bearer grant on the authorization server (W3): a
 * GitHub-Actions-shaped identity token from a loopback issuer (discovery and
 * JWKS over node:http, real signatures) is the `assertion` at /oauth/token,
 * and the answer is a short-lived token of the rule's service account, only on
 * an exact claim match, once per `jti`; the grant is offered to the static
 * `svc-workload` client only, and not at all without trusted workloads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryTokenStore } from '../../../src/stores';
import { WORKLOAD_CLIENT_ID } from '../../../src/entries/oauth';
import { testAuth, systemTime } from '../../support/auth';
import { startKeyServer, type KeyServer, type SigningKey } from '../../support/key-server';
import { startServer, type Running } from '../../support/oauth';
import { accountRecord, AUDIENCE, githubClaims } from '../../service/workloads/fixture';

const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let idp: KeyServer & { first: SigningKey };
let s: Running;
let bare: Running;
let store: MemoryTokenStore;

beforeAll(async () => {
  idp = await startKeyServer();
  store = new MemoryTokenStore();
  await store.putServiceAccount(accountRecord({ createdAt: new Date(), updatedAt: new Date() }));
  await store.putServiceAccount(accountRecord({ name: 'off-bot', disabled: true, createdAt: new Date(), updatedAt: new Date() }));
  const { auth } = await testAuth({
    tokens: store,
    now: systemTime,
    trustedWorkloads: [
      {
        issuer: idp.issuer,
        audience: AUDIENCE,
        rules: [
          {
            claims: { repository: 'acme/api', ref: 'refs/heads/main' },
            serviceAccount: 'acme/ci-bot',
            scopes: ['acme/api=repo:read,repo:write'],
          },
          { claims: { repository: 'acme/old' }, serviceAccount: 'acme/off-bot' },
        ],
      },
    ],
  });
  [s, bare] = await Promise.all([startServer({ auth }), startServer()]);
});
afterAll(async () => {
  await Promise.all([s?.close(), bare?.close(), idp?.close()]);
});

function assertion(more: Record<string, unknown> = {}): Promise<string> {
  return idp.sign(idp.first, githubClaims(idp.issuer, Math.floor(Date.now() / 1000), more), { typ: 'JWT' });
}

async function grant(base: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: GRANT, client_id: WORKLOAD_CLIENT_ID, ...form }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the jwt-bearer grant for workloads', () => {
  it('the metadata lists the grant when workloads are trusted, and not otherwise', async () => {
    const meta = (await (await fetch(`${s.base}/.well-known/oauth-authorization-server`)).json()) as { grant_types_supported: string[] };
    expect(meta.grant_types_supported).toContain(GRANT);
    const none = (await (await fetch(`${bare.base}/.well-known/oauth-authorization-server`)).json()) as { grant_types_supported: string[] };
    expect(none.grant_types_supported).not.toContain(GRANT);
    // Without trusted workloads there is no svc-workload client either.
    expect(await grant(bare.base, { assertion: await assertion() })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('a matching token gets a 15-minute token of the account, narrowed by the rule, that the Auth accepts', async () => {
    const got = await grant(s.base, { assertion: await assertion(), resource: s.base });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ token_type: 'Bearer', scope: 'acme/api=repo:read,repo:write' });
    expect(Math.abs((got.body.expires_in as number) - 900)).toBeLessThanOrEqual(2);
    expect(got.body).not.toHaveProperty('refresh_token');
    const p = await s.auth.authenticate(got.body.access_token as string);
    expect(p).toMatchObject({ userId: 'sa:acme/ci-bot', serviceAccount: { org: 'acme', name: 'ci-bot' } });
    expect(s.auth.authorize(p, 'acme/api', 'repo:write')).toEqual({ allowed: true });
    expect(s.auth.authorize(p, 'acme/web', 'repo:read')).toMatchObject({ allowed: false });
  });

  it('scope narrows within the rule; asking for more is invalid_scope and does not spend the token', async () => {
    const token = await assertion();
    const more = await grant(s.base, { assertion: token, scope: 'acme=org:admin' });
    expect(more).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const narrow = await grant(s.base, { assertion: token, scope: 'acme/api=repo:read' });
    expect(narrow).toMatchObject({ status: 200, body: { scope: 'acme/api=repo:read' } });
    const p = await s.auth.authenticate(narrow.body.access_token as string);
    expect(s.auth.authorize(p, 'acme/api', 'repo:write')).toMatchObject({ allowed: false });
  });

  it('attack: a replayed assertion is refused (invalid_grant)', async () => {
    const token = await assertion();
    expect((await grant(s.base, { assertion: token })).status).toBe(200);
    const again = await grant(s.base, { assertion: token });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(again.body.error_description).toMatch(/exchanged before/);
  });

  it('attack: a token of another branch is refused, naming the claim and never its value', async () => {
    const got = await grant(s.base, { assertion: await assertion({ ref: 'refs/heads/evil-branch' }) });
    expect(got).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(got.body.error_description).toContain('ref');
    expect(JSON.stringify(got.body)).not.toContain('evil-branch');
  });

  it("a disabled account's rule gets nothing", async () => {
    const got = await grant(s.base, { assertion: await assertion({ repository: 'acme/old' }) });
    expect(got).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(got.body.error_description).toMatch(/disabled/);
  });

  it('attack: hostile requests are OAuth errors, never a token or a crash', async () => {
    expect(await grant(s.base, {})).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await grant(s.base, { assertion: 'not.a.jwt' })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await grant(s.base, { assertion: 'x'.repeat(40_000) })).toMatchObject({ status: 400 });
    const elsewhere = await grant(s.base, { assertion: await assertion(), resource: 'https://elsewhere.example' });
    expect(elsewhere).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const unsigned = (await assertion()).split('.').slice(0, 2).join('.') + '.';
    expect(await grant(s.base, { assertion: unsigned })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('attack: no other client has the grant, and registration refuses it', async () => {
    const reg = await fetch(`${s.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], grant_types: ['authorization_code', GRANT] }),
    });
    expect(reg.status).toBe(400);
    expect(((await reg.json()) as { error: string }).error).toBe('invalid_client_metadata');
    const ok = await fetch(`${s.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'] }),
    });
    const { client_id } = (await ok.json()) as { client_id: string };
    const other = await grant(s.base, { client_id, assertion: await assertion() });
    expect(other.status).toBe(400);
    expect(other.body.access_token).toBeUndefined();
  });
});
