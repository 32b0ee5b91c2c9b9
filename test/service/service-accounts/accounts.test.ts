/**
 * Service accounts (W1, W2) on the memory store: an org admin makes an account and its tokens;
 * the tokens outlive the admin, follow the account's live role, and stop when it is disabled.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../../src/errors';
import type { Auth, AuthEvent, Principal } from 'svc-auth';
import { testAuth, type TestAuth } from '../../support/auth';
import { rejection } from '../../support/errors';

const ROLES = {
  alice: { orgs: { acme: 'owner' as const } },
  adam: { orgs: { acme: 'owner' as const } },
  ada: { orgs: { acme: 'admin' as const } },
  bob: { orgs: { acme: 'editor' as const } },
};
const WRITE = [{ resource: 'acme/web', permissions: ['repo:write'] }];

async function setup(): Promise<TestAuth & { owner: Principal; admin: Principal; bob: Principal }> {
  const t = await testAuth({ roles: ROLES });
  const session = async (u: string): Promise<Principal> => t.auth.authenticate(await t.auth.issueSession(u));
  return { ...t, owner: await session('alice'), admin: await session('adam'), bob: await session('bob') };
}

async function botToken(auth: Auth, admin: Principal, role: 'editor' | 'viewer' | 'admin' = 'editor'): Promise<string> {
  await auth.client(admin).org('acme').serviceAccounts.create({ name: 'ci-bot', role, description: 'deploys web' });
  const { token } = await auth.client(admin).org('acme').serviceAccount('ci-bot').token.create({ name: 'deploy', scopes: WRITE });
  return token;
}

describe('service accounts', () => {
  it('an org admin creates one; it is a principal of its own, sa:<org>/<name>, reaching only its org', async () => {
    const { auth, admin } = await setup();
    const info = await auth.client(admin).org('ACME').serviceAccounts.create({ name: 'ci-bot', role: 'editor' });
    expect(info).toMatchObject({ id: 'sa:acme/ci-bot', org: 'acme', name: 'ci-bot', role: 'editor', disabled: false, createdBy: 'adam' });
    const { token } = await auth.client(admin).org('acme').serviceAccount('ci-bot').token.create({ name: 'all' });
    const p = await auth.authenticate(token);
    expect(p.userId).toBe('sa:acme/ci-bot');
    expect(p.serviceAccount).toEqual({ org: 'acme', name: 'ci-bot' });
    expect(auth.authorize(p, 'acme/web', 'repo:write').allowed).toBe(true);
    expect(auth.authorize(p, 'globex/web', 'repo:read').allowed).toBe(false);
    expect(auth.authorize(p, 'acme', 'org:admin').allowed).toBe(false);
  });

  it("a person's principal has serviceAccount null", async () => {
    const { bob } = await setup();
    expect(bob.serviceAccount).toBeNull();
  });

  it('its PAT outlives the admin who made it: the admin loses membership, the token keeps working within the role', async () => {
    const { auth, admin, roles } = await setup();
    const token = await botToken(auth, admin);
    roles.delete('adam');
    // A principal holds the roles it was authenticated with: the admin's next request is a new one.
    const gone = await auth.principalFor('adam');
    await expect(auth.client(gone).org('acme').serviceAccounts.list()).rejects.toBeInstanceOf(ForbiddenError);
    const p = await auth.authenticate(token);
    expect(auth.authorize(p, 'acme/web', 'repo:write').allowed).toBe(true);
  });

  it('an editor account lowered to viewer: its token cannot write on the next request', async () => {
    const { auth, admin } = await setup();
    const token = await botToken(auth, admin);
    expect(auth.authorize(await auth.authenticate(token), 'acme/web', 'repo:write').allowed).toBe(true);
    await auth.client(admin).org('acme').serviceAccounts.update('ci-bot', { role: 'viewer' });
    const p = await auth.authenticate(token);
    expect(auth.authorize(p, 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'role' });
  });

  it('disabled: every token refused on the next request; enabled again: it works', async () => {
    const { auth, admin, events } = await setup();
    const token = await botToken(auth, admin);
    await auth.client(admin).org('acme').serviceAccounts.update('ci-bot', { disabled: true });
    const err = await rejection(auth.authenticate(token));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).reason).toBe('revoked');
    expect((err as Error).message).toContain('acme/ci-bot is disabled');
    await expect(auth.client(admin).org('acme').serviceAccount('ci-bot').token.create({ name: 'more' })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await auth.client(admin).org('acme').serviceAccounts.update('ci-bot', { disabled: false });
    await expect(auth.authenticate(token)).resolves.toMatchObject({ userId: 'sa:acme/ci-bot' });
    await auth.flush();
    const types = events.filter((e): e is Extract<AuthEvent, { type: `service_account.${string}` }> =>
      e.type.startsWith('service_account.'),
    );
    expect(types.map((e) => e.type)).toEqual(['service_account.created', 'service_account.disabled', 'service_account.updated']);
    expect(types[1]).toMatchObject({ org: 'acme', name: 'ci-bot', accountId: 'sa:acme/ci-bot', actor: { userId: 'adam' } });
  });

  it('token events name the account as owner and the admin as actor', async () => {
    const { auth, admin, events } = await setup();
    await botToken(auth, admin);
    await auth.flush();
    const created = events.find((e) => e.type === 'token.created' && e.token.ownerId.startsWith('sa:'));
    expect(created).toMatchObject({ actor: { userId: 'adam' }, token: { ownerId: 'sa:acme/ci-bot', name: 'deploy' } });
  });

  it('list, get, revoke through serviceAccount(name).token', async () => {
    const { auth, admin } = await setup();
    const token = await botToken(auth, admin);
    const api = auth.client(admin).org('acme').serviceAccount('ci-bot').token;
    expect((await api.list()).map((t) => t.name)).toEqual(['deploy']);
    expect((await api.get('deploy')).status).toBe('active');
    await api.revoke('deploy');
    await expect(auth.authenticate(token)).rejects.toMatchObject({ reason: 'revoked' });
  });

  it('only org:admin (owners) manage accounts: an org admin role, a PAT without org:admin, are refused', async () => {
    const { auth, owner } = await setup();
    const ada = await auth.authenticate(await auth.issueSession('ada'));
    await expect(auth.client(ada).org('acme').serviceAccounts.create({ name: 'x', role: 'viewer' })).rejects.toBeInstanceOf(ForbiddenError);
    const { token } = await auth.client(owner).token.create({ name: 'ro', scopes: [{ resource: 'acme', permissions: ['org:read'] }] });
    const pat = await auth.authenticate(token);
    await expect(auth.client(pat).org('acme').serviceAccounts.list()).rejects.toBeInstanceOf(ForbiddenError);
    const { token: adminPat } = await auth
      .client(owner)
      .token.create({ name: 'adm', scopes: [{ resource: 'acme', permissions: ['org:admin'] }] });
    await auth
      .client(await auth.authenticate(adminPat))
      .org('acme')
      .serviceAccounts.create({ name: 'made-by-pat', role: 'owner' });
    expect((await auth.client(owner).org('acme').serviceAccounts.get('made-by-pat')).createdBy).toBe('alice');
  });

  it("an account's own credential with org:admin manages accounts only up to its role (W1)", async () => {
    const { auth, owner } = await setup();
    await auth.client(owner).org('acme').serviceAccounts.create({ name: 'root', role: 'owner' });
    const { token } = await auth.client(owner).org('acme').serviceAccount('root').token.create({ name: 'r' });
    const root = await auth.authenticate(token);
    await auth.client(root).org('acme').serviceAccounts.create({ name: 'child', role: 'editor' });
    expect((await auth.client(owner).org('acme').serviceAccounts.get('child')).createdBy).toBe('sa:acme/root');
  });

  it('non-admins and component tokens are refused; names are unique; unknown names are NotFound', async () => {
    const { auth, admin, bob } = await setup();
    await expect(auth.client(bob).org('acme').serviceAccounts.create({ name: 'x', role: 'viewer' })).rejects.toBeInstanceOf(ForbiddenError);
    const component = await auth.authenticate(await auth.issueComponentToken('adam'));
    await expect(auth.client(component).org('acme').serviceAccounts.list()).rejects.toBeInstanceOf(ForbiddenError);
    await auth.client(admin).org('acme').serviceAccounts.create({ name: 'x', role: 'viewer' });
    await expect(auth.client(admin).org('acme').serviceAccounts.create({ name: 'x', role: 'viewer' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(auth.client(admin).org('acme').serviceAccounts.get('nope')).rejects.toBeInstanceOf(NotFoundError);
    expect((await auth.client(admin).org('acme').serviceAccounts.list()).map((a) => a.name)).toEqual(['x']);
  });

  it('bad input is one ValidationError listing every field', async () => {
    const { auth, admin } = await setup();
    const err = await rejection(
      auth
        .client(admin)
        .org('acme')
        .serviceAccounts.create({ name: 'CI Bot', role: 'god', extra: 1 } as never),
    );
    expect(err).toBeInstanceOf(ValidationError);
    const paths = (err as ValidationError).issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['name', 'role']));
  });

  it('machine clients: a secret shown once, keys public only, revocation, at most 20', async () => {
    const { auth, admin, events } = await setup();
    await auth.client(admin).org('acme').serviceAccounts.create({ name: 'ci-bot', role: 'editor' });
    const clients = auth.client(admin).org('acme').serviceAccount('ci-bot').clients;
    const made = await clients.create({ secret: true });
    expect(made.clientId).toMatch(/^sa~acme~ci-bot~[A-Za-z0-9_-]{22}$/);
    expect(made.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(await clients.list())).not.toContain(made.clientSecret as string);
    await auth.flush();
    expect(events.some((e) => e.type === 'service_account.updated' && e.clientId === made.clientId)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(made.clientSecret as string);
    const key = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
    const jwt = await clients.create({ jwks: { keys: [key] } });
    expect(jwt).toMatchObject({ method: 'private_key_jwt', clientSecret: null, status: 'active' });
    const priv = await rejection(clients.create({ jwks: { keys: [{ ...key, d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A' }] } }));
    expect((priv as ValidationError).issues[0]?.message).toContain('private key');
    expect(await clients.revoke(made.clientId)).toMatchObject({ status: 'revoked' });
    expect((await clients.list()).map((c) => c.status)).toEqual(['revoked', 'active']);
  });
});
