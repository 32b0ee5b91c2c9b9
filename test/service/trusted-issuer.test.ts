/**
 * T10 against a real "company IdP" (oidc-provider on loopback, client credentials
 * with resource indicators): its JWT access tokens authenticate as sessions of their
 * user, capped by the user's live roles, narrowed by their `scope` claim; a narrowed
 * session manages no tokens; a token for another API of the same IdP never works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, ForbiddenError } from '../../src/errors';
import { createAuth, type Auth } from '../../src/service';
import type { UserRoles } from '../../src/core/policy';
import { generateKeyRing } from '../../src/tokens';
import { userIdPrefixOf } from '../support/issuer-user-id';
import { API_AUDIENCE, OTHER_AUDIENCE, startCompanyIdp, type CompanyIdp } from '../support/company-idp';
import { rejection } from '../support/errors';

let idp: CompanyIdp;
let auth: Auth;
/** The user id of the IdP's `sub` here (T10: derived from the issuer and the claim). */
let user: (sub: string) => string;
/** Roles keyed by the IdP's `sub`. */
const roles = new Map<string, UserRoles>([
  ['alice', { orgs: { acme: 'editor' } }],
  ['bob', { orgs: { acme: 'viewer' } }],
]);

beforeAll(async () => {
  idp = await startCompanyIdp(['alice', 'bob', 'mallory']);
  const prefix = userIdPrefixOf(idp.issuer);
  user = (sub) => `${prefix}${sub}`;
  auth = createAuth({
    issuer: 'https://svc.test',
    keys: await generateKeyRing(),
    members: { rolesOf: (u) => roles.get(u.startsWith(prefix) ? u.slice(prefix.length) : u) ?? {} },
    trustedIssuers: [{ issuer: idp.issuer, audience: API_AUDIENCE }],
  });
});
afterAll(async () => {
  await idp.close();
});

async function reasonOf(p: Promise<unknown>): Promise<string> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(AuthenticationError);
  return (err as AuthenticationError).reason;
}

describe('a company IdP access token (oidc-provider, client credentials, RFC 8707 resource)', () => {
  it('authenticates as a session of its user (issuer and sub), capped by the live roles', async () => {
    const p = await auth.authenticate(await idp.token('alice'));
    expect(p.kind).toBe('session');
    expect(p.userId).toBe(user('alice'));
    expect(p.issuedBy).toEqual({ issuer: idp.issuer, clientId: 'alice', permissions: null });
    expect(p.tokenId).toBeUndefined();
    expect(p.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: true });
    expect(auth.authorize(p, 'acme', 'org:admin')).toEqual({ allowed: false, reason: 'role' });
    expect(auth.authorize(p, 'other/web', 'repo:read')).toEqual({ allowed: false, reason: 'role' });
  });

  it('a role change holds on the next request, even for a token verified before (roles are read every time)', async () => {
    const token = await idp.token('bob');
    expect(auth.authorize(await auth.authenticate(token), 'acme/web', 'repo:write').allowed).toBe(false);
    roles.set('bob', { orgs: { acme: 'editor' } });
    try {
      expect(auth.authorize(await auth.authenticate(token), 'acme/web', 'repo:write').allowed).toBe(true);
    } finally {
      roles.set('bob', { orgs: { acme: 'viewer' } });
    }
  });

  it('without a scope claim it manages its user tokens like any session (M1)', async () => {
    const p = await auth.authenticate(await idp.token('alice'));
    const { token } = await auth
      .client(p)
      .token.create({ name: 'from-idp', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    const pat = await auth.authenticate(token);
    expect(pat.kind).toBe('pat');
    expect(pat.userId).toBe(user('alice'));
    expect((await auth.client(p).token.list()).map((t) => t.name)).toContain('from-idp');
  });

  it('a scope claim narrows it as a global-tier entry: its svc permissions only, other words ignored', async () => {
    const p = await auth.authenticate(await idp.token('alice', { scope: 'openid repo:read email' }));
    expect(auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    expect(auth.authorize(p, 'acme', 'org:read')).toEqual({ allowed: false, reason: 'scope' });
  });

  it('the scope never lifts the role cap: a viewer granted repo:write still cannot write', async () => {
    const p = await auth.authenticate(await idp.token('bob', { scope: 'repo:read repo:write' }));
    expect(auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'role' });
  });

  it("a scope of OpenID Connect's own names only (openid email) does not narrow: the session is the user's roles", async () => {
    const p = await auth.authenticate(await idp.token('alice', { scope: 'openid email' }));
    expect(p.issuedBy?.permissions).toBeNull();
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: true });
  });

  it('a scope word nobody here reads (read:messages) narrows, to the svc names beside it (none: nothing)', async () => {
    const p = await auth.authenticate(await idp.token('alice', { scope: 'openid read:messages' }));
    expect(p.issuedBy?.permissions).toEqual([]);
    expect(auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'scope' });
  });

  it('privilege escalation: a repo:read grant to an MCP client cannot mint itself a full-access PAT (every management call is ForbiddenError)', async () => {
    const p = await auth.authenticate(await idp.token('alice', { scope: 'repo:read' }));
    const api = auth.client(p).token;
    for (const call of [
      () => api.create({ name: 'escalate' }),
      () => api.list(),
      () => api.get('from-idp'),
      () => api.revoke('from-idp'),
    ]) {
      const err = await rejection(call);
      expect(err).toBeInstanceOf(ForbiddenError);
      expect((err as Error).message).toMatch(/scope claim/);
    }
    expect((await auth.tokensOf(user('alice'))).some((t) => t.name === 'escalate')).toBe(false);
  });

  it("a repo:read grant to an MCP client cannot list or end its user's sign-ins (sessions are ForbiddenError)", async () => {
    const p = await auth.authenticate(await idp.token('alice', { scope: 'repo:read' }));
    const own = await auth.issueSession(user('alice'));
    const ownId = (await auth.authenticate(own)).tokenId as string;
    const api = auth.client(p).sessions;
    for (const call of [() => api.list(), () => api.revoke(ownId)]) {
      const err = await rejection(call);
      expect(err).toBeInstanceOf(ForbiddenError);
      expect((err as Error).message).toMatch(/scope claim/);
    }
    // The user's own session is untouched.
    await expect(auth.authenticate(own)).resolves.toMatchObject({ userId: user('alice') });
  });

  it('token passthrough: a token the same IdP minted for another API is refused (audience)', async () => {
    expect(await reasonOf(auth.authenticate(await idp.token('alice', { resource: OTHER_AUDIENCE })))).toBe('audience');
  });

  it('a token of an IdP this instance does not trust is refused (issuer)', async () => {
    const other = createAuth({
      issuer: 'https://svc.test',
      keys: await generateKeyRing(),
      members: { rolesOf: () => ({}) },
      trustedIssuers: [{ issuer: 'https://sso.example.com', audience: API_AUDIENCE }],
    });
    expect(await reasonOf(other.authenticate(await idp.token('alice')))).toBe('issuer');
  });

  it('userIdClaim reads the user id from another claim (here client_id)', async () => {
    const byClient = createAuth({
      issuer: 'https://svc.test',
      keys: await generateKeyRing(),
      members: { rolesOf: () => ({}) },
      trustedIssuers: [{ issuer: idp.issuer, audience: API_AUDIENCE, userIdClaim: 'client_id', algorithms: ['ES256'] }],
    });
    const p = await byClient.authenticate(await idp.token('alice'));
    expect(p.userId).toBe(user('alice'));
  });

  it("an IdP token's own instance still verifies its own sessions and PATs as before", async () => {
    const session = await auth.issueSession('alice');
    const p = await auth.authenticate(session);
    expect(p.kind).toBe('session');
    expect(auth.authorize(p, 'acme/web', 'repo:write').allowed).toBe(true);
  });
});
