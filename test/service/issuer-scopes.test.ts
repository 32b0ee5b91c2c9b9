/**
 * Defect (issue 28, item 3): a trusted issuer's tokens could not manage tokens, and often
 * could do nothing. Every mainstream IdP writes `scope`; Auth0's usual `openid profile email`
 * granted nothing, and any scope claim forbade token management. Now only svc permission
 * names (and words nobody here reads) narrow, and the issuer's `scopes` option says what its
 * scopes mean: 'narrow' (default), 'ignore', or a map. An Auth0-shaped IdP: a real
 * oidc-provider on loopback issuing `openid profile email` (and `read:messages`) tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../src/errors';
import { createAuth, type Auth } from '../../src/service';
import { generateKeyRing, type KeyRing, type TrustedIssuer } from '../../src/tokens';
import { API_AUDIENCE, startCompanyIdp, type CompanyIdp } from '../support/company-idp';
import { pathsOf, rejection } from '../support/errors';

let idp: CompanyIdp;
let keys: KeyRing;
beforeAll(async () => {
  [idp, keys] = await Promise.all([startCompanyIdp(['alice']), generateKeyRing()]);
});
afterAll(async () => {
  await idp.close();
});

function authWith(options: Partial<TrustedIssuer> = {}): Auth {
  return createAuth({
    issuer: 'https://svc.test',
    keys,
    // Every derived user id of this IdP is an editor of acme.
    members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
    trustedIssuers: [{ issuer: idp.issuer, audience: API_AUDIENCE, ...options }],
  });
}

describe("an Auth0-shaped IdP's tokens (openid profile email)", () => {
  it("'narrow' (default): OIDC's own names say nothing, so the session is the user's roles and creates PATs", async () => {
    const auth = authWith();
    const p = await auth.authenticate(await idp.token('alice', { scope: 'openid profile email' }));
    expect(p.issuedBy).toEqual({ issuer: idp.issuer, clientId: 'alice', permissions: null });
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: true });
    const { token } = await auth.client(p).token.create({ name: 'ci', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
    await expect(auth.authenticate(token)).resolves.toMatchObject({ kind: 'pat', userId: p.userId });
  });

  it("'narrow': svc names narrow to themselves, and the refusal to manage names the issuer, the claim and the option", async () => {
    const auth = authWith({ scopes: 'narrow' });
    const p = await auth.authenticate(await idp.token('alice', { scope: 'openid profile email repo:read' }));
    expect(p.issuedBy?.permissions).toEqual(['repo:read']);
    expect(auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    const err = await rejection(auth.client(p).token.create({ name: 'escalate' }));
    expect(err).toBeInstanceOf(ForbiddenError);
    const message = (err as Error).message;
    expect(message).toContain(idp.issuer);
    expect(message).toContain("token's scope claim (granting repo:read)");
    expect(message).toContain("scopes: 'ignore'");
  });

  it("'narrow': a word nobody here reads (read:messages) narrows to nothing; ignoredScopes says it means nothing", async () => {
    const strict = authWith();
    const p = await strict.authenticate(await idp.token('alice', { scope: 'openid read:messages' }));
    expect(strict.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'scope' });
    expect(await rejection(strict.client(p).token.list())).toBeInstanceOf(ForbiddenError);

    const told = authWith({ ignoredScopes: ['read:messages'] });
    const q = await told.authenticate(await idp.token('alice', { scope: 'openid read:messages' }));
    expect(q.issuedBy?.permissions).toBeNull();
    expect(await told.client(q).token.list()).toEqual([]);
  });

  it("'ignore': the IdP's scopes say nothing about ours, even svc names: its users create PATs", async () => {
    const auth = authWith({ scopes: 'ignore' });
    const p = await auth.authenticate(await idp.token('alice', { scope: 'openid profile email read:messages repo:read' }));
    expect(p.issuedBy?.permissions).toBeNull();
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: true });
    const { info } = await auth.client(p).token.create({ name: 'from-auth0' });
    expect(info.name).toBe('from-auth0');
  });

  it("a map: the IdP's scope names grant the svc permissions they map to, and narrow", async () => {
    const auth = authWith({ scopes: { 'read:messages': ['repo:read', 'org:read'] } });
    const p = await auth.authenticate(await idp.token('alice', { scope: 'openid profile email read:messages' }));
    expect(p.issuedBy?.permissions).toEqual(['repo:read', 'org:read']);
    expect(auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect(auth.authorize(p, 'acme', 'org:read')).toEqual({ allowed: true });
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    expect(await rejection(auth.client(p).token.create({ name: 'x' }))).toBeInstanceOf(ForbiddenError);
    // Only OIDC names: the map has nothing to say, the session is not narrowed.
    const plain = await auth.authenticate(await idp.token('alice', { scope: 'openid email' }));
    expect(plain.issuedBy?.permissions).toBeNull();
  });

  it('scopes and ignoredScopes are checked when createAuth builds, every problem at its path', () => {
    const build = (options: Record<string, unknown>) => () =>
      createAuth({
        issuer: 'https://svc.test',
        keys,
        members: { rolesOf: () => ({}) },
        trustedIssuers: [{ issuer: 'https://idp.example.com', audience: 'api', ...options }] as TrustedIssuer[],
      });
    expect(pathsOf(build({ scopes: 'all' }))).toEqual(['trustedIssuers[0].scopes']);
    expect(pathsOf(build({ scopes: { 'read:x': ['repo:delete'], 'a b': [] } }))).toEqual([
      'trustedIssuers[0].scopes["read:x"]',
      'trustedIssuers[0].scopes["a b"]',
    ]);
    // Ignoring an svc name would make a repo:read token as strong as its user: said plainly with 'ignore'.
    expect(pathsOf(build({ ignoredScopes: ['repo:read'] }))).toEqual(['trustedIssuers[0].ignoredScopes']);
    expect(pathsOf(build({ ignoredScopes: 'openid' }))).toEqual(['trustedIssuers[0].ignoredScopes']);
    // A recorded issuer (svc-auth's own server): its scope is the user's consent, always narrowing.
    expect(pathsOf(build({ recorded: true, scopes: 'ignore', ignoredScopes: [] }))).toEqual([
      'trustedIssuers[0].scopes',
      'trustedIssuers[0].ignoredScopes',
    ]);
  });
});
