/**
 * Issue 30 on the memory and file stores: an org owner's policy, approvals and
 * revocations hold at creation and on the next request, for that org only;
 * sessions and component tokens are not subject; nobody without org:admin
 * reads or changes anything of the org's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../src/errors';
import type { Auth, AuthEvent, Principal } from 'svc-auth';
import type { CreateTokenInput } from '../../../src/service';
import { FileTokenStore, MemoryTokenStore, type TokenStore } from '../../../src/stores';
import { testAuth } from '../../support/auth';
import { rejection } from '../../support/errors';

const ROLES = {
  alice: { orgs: { acme: 'owner' as const, globex: 'owner' as const } },
  bob: { orgs: { acme: 'editor' as const, globex: 'editor' as const } },
  carol: { orgs: { acme: 'viewer' as const } },
};
const READ = (resource: string): { resource: string; permissions: string[] } => ({ resource, permissions: ['repo:read'] });

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-orgs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const STORES: [string, () => TokenStore][] = [
  ['memory', () => new MemoryTokenStore()],
  ['file', () => new FileTokenStore(join(dir, `s${n++}`))],
];

describe.each(STORES)('org governance on the %s store', (_name, makeStore) => {
  async function setup(): Promise<{ auth: Auth; events: AuthEvent[]; owner: Principal; bob: Principal }> {
    const t = await testAuth({ roles: ROLES, tokens: makeStore() });
    const owner = await t.auth.authenticate(await t.auth.issueSession('alice'));
    const bob = await t.auth.authenticate(await t.auth.issueSession('bob'));
    return { auth: t.auth, events: t.events, owner, bob };
  }
  async function pat(auth: Auth, p: Principal, input: CreateTokenInput): Promise<{ token: string; id: string; p: Principal }> {
    const { token, info } = await auth.client(p).token.create(input);
    return { token, id: info.id, p: await auth.authenticate(token, { address: '10.0.0.1' }) };
  }

  it('a 90-day policy refuses a 365-day token naming the org at creation, with the org, the limit and the fix', async () => {
    const { auth, owner, bob } = await setup();
    await auth.client(owner).org('acme').policy.set({ maxLifetime: '90d' });
    const err = await rejection(auth.client(bob).token.create({ name: 'long', scopes: [READ('acme/web')], expiresIn: '365d' }));
    expect(err).toBeInstanceOf(ValidationError);
    const issue = (err as ValidationError).issues[0];
    expect(issue?.path).toEqual(['expiresIn']);
    expect(issue?.message).toContain("'acme'");
    expect(issue?.message).toContain('at most 90 days');
    expect(issue?.message).toContain('--expires 90d');
    // Only orgs its entries name: globex has no policy.
    await auth.client(bob).token.create({ name: 'globex', scopes: [READ('globex/web')], expiresIn: '365d' });
  });

  it('an older 365-day token is refused at use in that org only (reason policy, with the message) and still works in another', async () => {
    const { auth, owner, bob } = await setup();
    const old = await pat(auth, bob, { name: 'old', scopes: [READ('acme/web'), READ('globex/web')], expiresIn: '365d' });
    expect(auth.authorize(old.p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    await auth.client(owner).org('ACME').policy.set({ maxLifetime: 90 });
    const again = await auth.authenticate(old.token);
    const d = auth.authorize(again, 'acme/web', 'repo:read');
    expect(d).toMatchObject({ allowed: false, reason: 'policy' });
    expect((d as { message?: string }).message).toContain('at most 90 days');
    expect(auth.authorize(again, 'globex/web', 'repo:read')).toEqual({ allowed: true });
    // The policy blocks, it never revokes: lifting it lets the token in again.
    await auth.client(owner).org('acme').policy.set({ maxLifetime: null });
    expect(auth.authorize(await auth.authenticate(old.token), 'acme/web', 'repo:read')).toEqual({ allowed: true });
  });

  it('approval: pending refused, approved passes on the next request, its child passes without a request, denied stays refused', async () => {
    const { auth, owner, bob, events } = await setup();
    const acme = auth.client(owner).org('acme');
    await acme.policy.set({ requireApproval: true });
    const { info } = await auth.client(bob).token.create({ name: 'ci', scopes: [READ('acme/web')], justification: 'CI deploys' });
    expect(info.orgAccess).toMatchObject([{ org: 'acme', status: 'pending' }]);
    await auth.flush();
    expect(
      events.some((e) => e.type === 'token.requested' && e.org === 'acme' && e.token.id === info.id && e.justification === 'CI deploys'),
    ).toBe(true);
    const ci = await auth.client(bob).token.create({ name: 'ci2', scopes: [READ('acme/web')] });
    const p = await auth.authenticate(ci.token);
    expect(auth.authorize(p, 'acme/web', 'repo:read')).toMatchObject({ allowed: false, reason: 'policy' });
    const pending = await acme.requests.list();
    expect(pending.map((r) => r.id).sort()).toEqual([info.id, ci.info.id].sort());
    expect(pending.find((r) => r.id === info.id)).toMatchObject({
      ownerId: 'bob',
      tokenName: 'ci',
      justification: 'CI deploys',
      scopes: [READ('acme/web')],
    });

    const approved = await acme.requests.approve([ci.info.id], { reason: 'ok' });
    expect(approved).toMatchObject([{ id: ci.info.id, status: 'approved', decidedBy: 'alice', reason: 'ok' }]);
    const p2 = await auth.authenticate(ci.token);
    expect(auth.authorize(p2, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    // A child of the approved token opens no request and passes.
    const child = await auth.client(p2).token.create({ name: 'child', scopes: [READ('acme/web')] });
    expect(child.info.orgAccess).toMatchObject([{ org: 'acme', status: 'approved', decidedBy: 'alice' }]);
    expect(auth.authorize(await auth.authenticate(child.token), 'acme/web', 'repo:read')).toEqual({ allowed: true });
    expect((await acme.requests.list()).map((r) => r.id)).toEqual([info.id]);

    await acme.requests.deny([info.id], { reason: 'no' });
    expect(await acme.requests.list({ status: 'denied' })).toMatchObject([{ id: info.id, status: 'denied', reason: 'no' }]);
    const listed = await auth.client(bob).token.get('ci');
    expect(listed.orgAccess).toMatchObject([{ org: 'acme', status: 'denied' }]);
    // Approving a denied one changes nothing: an owner revokes or a new token is made.
    expect(await acme.requests.approve([info.id])).toEqual([]);
    await auth.flush();
    expect(events.filter((e) => e.type === 'token.approved' || e.type === 'token.denied').map((e) => e.type)).toEqual([
      'token.approved',
      'token.denied',
    ]);
  });

  it("an owner's own token is approved; a token made before the policy is refused until approved by its id", async () => {
    const { auth, owner, bob } = await setup();
    const before = await pat(auth, bob, { name: 'before', scopes: [READ('acme/web')] });
    await auth.client(owner).org('acme').policy.set({ requireApproval: true });
    const d = auth.authorize(await auth.authenticate(before.token), 'acme/web', 'repo:read');
    expect(d).toMatchObject({ allowed: false, reason: 'policy' });
    expect((d as { message: string }).message).toContain(before.id);
    await auth.client(owner).org('acme').requests.approve([before.id]);
    expect(auth.authorize(await auth.authenticate(before.token), 'acme/web', 'repo:read')).toEqual({ allowed: true });
    const own = await auth.client(owner).token.create({ name: 'own', scopes: [READ('acme/web')] });
    expect(own.info.orgAccess).toMatchObject([
      { org: 'acme', status: 'approved', decidedBy: 'alice', reason: 'owner of the organization' },
    ]);
    expect(auth.authorize(await auth.authenticate(own.token), 'acme/web', 'repo:read')).toEqual({ allowed: true });
  });

  it('org revocation holds on the next request, for that org only, and the children lose it too', async () => {
    const { auth, owner, bob, events } = await setup();
    const parent = await pat(auth, bob, { name: 'p', scopes: [READ('acme/web'), READ('globex/web')] });
    const child = await pat(auth, parent.p, { name: 'c' });
    const inventory = await auth.client(owner).org('acme').tokens.list();
    expect(inventory.map((t) => t.id).sort()).toEqual([parent.id, child.id].sort());
    expect(inventory.every((t) => t.access === 'approved')).toBe(true);
    const out = await auth.client(owner).org('acme').tokens.revoke([parent.id], { reason: 'left the team' });
    expect(out).toMatchObject([{ id: parent.id, access: 'revoked', reason: 'left the team' }]);
    for (const t of [parent, child]) {
      const p = await auth.authenticate(t.token);
      expect(auth.authorize(p, 'acme/web', 'repo:read')).toMatchObject({ allowed: false, reason: 'policy' });
      expect(auth.authorize(p, 'globex/web', 'repo:read')).toEqual({ allowed: true });
    }
    expect((await auth.client(owner).org('acme').tokens.list({ access: 'revoked' })).map((t) => t.id).sort()).toEqual(
      [parent.id, child.id].sort(),
    );
    await auth.flush();
    expect(events.some((e) => e.type === 'token.org_revoked' && e.org === 'acme' && e.actor.userId === 'alice')).toBe(true);
    expect(JSON.stringify(events)).not.toContain(parent.token);
  });

  it('allowGlobal false: full access and a global entry are refused in the org, an entry naming it passes', async () => {
    const { auth, owner, bob } = await setup();
    const full = await pat(auth, bob, { name: 'full' });
    const global = await pat(auth, bob, { name: 'global', scopes: [{ permissions: ['repo:read'] }] });
    const named = await pat(auth, bob, { name: 'named', scopes: [READ('acme')] });
    await auth.client(owner).org('acme').policy.set({ allowGlobal: false });
    for (const t of [full, global]) {
      const p = await auth.authenticate(t.token);
      expect(auth.authorize(p, 'acme/web', 'repo:read')).toMatchObject({ allowed: false, reason: 'policy' });
      expect(auth.authorize(p, 'globex/web', 'repo:read')).toEqual({ allowed: true });
    }
    expect(auth.authorize(await auth.authenticate(named.token), 'acme/web', 'repo:read')).toEqual({ allowed: true });
  });

  it('requireAllowedIps: refused at creation without a list, refused at use for an older token, passes with one', async () => {
    const { auth, owner, bob } = await setup();
    const old = await pat(auth, bob, { name: 'old', scopes: [READ('acme/web')] });
    await auth.client(owner).org('acme').policy.set({ requireAllowedIps: true });
    const err = await rejection(auth.client(bob).token.create({ name: 'x', scopes: [READ('acme/web')] }));
    expect((err as ValidationError).issues[0]).toMatchObject({ path: ['allowedIps'] });
    expect((err as ValidationError).issues[0]?.message).toContain('--allowed-ip');
    expect(auth.authorize(await auth.authenticate(old.token), 'acme/web', 'repo:read')).toMatchObject({ reason: 'policy' });
    const ok = await pat(auth, bob, { name: 'ok', scopes: [READ('acme/web')], allowedIps: ['10.0.0.0/8'] });
    expect(auth.authorize(ok.p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
  });

  it('exempt users: the lifetime and approval rules do not apply to them', async () => {
    const { auth, owner, bob } = await setup();
    await auth
      .client(owner)
      .org('acme')
      .policy.set({ maxLifetime: '30d', requireApproval: true, exempt: ['bob'] });
    const t = await pat(auth, bob, { name: 'long', scopes: [READ('acme/web')], expiresIn: '365d' });
    expect(auth.authorize(t.p, 'acme/web', 'repo:read')).toEqual({ allowed: true });
  });

  it('sessions are not subject to any org rule', async () => {
    const { auth, owner, bob } = await setup();
    await auth
      .client(owner)
      .org('acme')
      .policy.set({ maxLifetime: '1d', requireApproval: true, allowGlobal: false, requireAllowedIps: true });
    expect(auth.authorize(bob, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    const again = await auth.authenticate(await auth.issueSession('bob', { expiresIn: '30d' }));
    expect(auth.authorize(again, 'acme/web', 'repo:read')).toEqual({ allowed: true });
    const component = await auth.authenticate(await auth.issueComponentToken('bob'));
    expect(auth.authorize(component, 'acme/web', 'repo:read')).toEqual({ allowed: true });
  });

  it('a member without org:admin cannot read or change anything of the org (ForbiddenError naming org:admin)', async () => {
    const { auth, owner, bob } = await setup();
    const carol = await auth.authenticate(await auth.issueSession('carol'));
    const narrowOwner = await pat(auth, owner, { name: 'reader', scopes: [READ('acme')] });
    const component = await auth.authenticate(await auth.issueComponentToken('alice'));
    for (const p of [bob, carol, narrowOwner.p, component]) {
      const acme = auth.client(p).org('acme');
      for (const call of [
        () => acme.policy.get(),
        () => acme.policy.set({ requireApproval: true }),
        () => acme.requests.list(),
        () => acme.requests.approve([bob.tokenId as string]),
        () => acme.requests.deny([bob.tokenId as string]),
        () => acme.tokens.list(),
        () => acme.tokens.revoke([bob.tokenId as string]),
      ]) {
        const err = await rejection(call);
        expect(err).toBeInstanceOf(ForbiddenError);
        expect((err as Error).message).toContain('org:admin');
      }
    }
    expect((await auth.client(owner).org('acme').policy.get()).requireApproval).toBe(false);
    // A PAT holding org:admin on the org may govern it.
    const admin = await pat(auth, owner, { name: 'admin', scopes: [{ resource: 'acme', permissions: ['role:owner'] }] });
    expect((await auth.client(admin.p).org('Acme').policy.get()).org).toBe('acme');
  });

  it('policy.get shows the defaults, policy.set validates every field and records who and when, with an event', async () => {
    const { auth, owner, events } = await setup();
    const acme = auth.client(owner).org('Acme');
    expect(await acme.policy.get()).toMatchObject({
      org: 'acme',
      maxLifetime: null,
      requireApproval: false,
      allowGlobal: true,
      updatedBy: null,
    });
    const err = await rejection(acme.policy.set({ maxLifetime: '400d', exempt: 'bob' } as never));
    expect((err as ValidationError).issues.map((i) => i.path[0]).sort()).toEqual(['exempt', 'maxLifetime']);
    const after = await acme.policy.set({ maxLifetime: 90, exempt: ['bob'] });
    expect(after).toMatchObject({ org: 'acme', maxLifetime: '90d', exempt: ['bob'], updatedBy: 'alice' });
    expect(await auth.client(owner).org('ACME').policy.get()).toEqual(after);
    await auth.flush();
    const changed = events.find((e) => e.type === 'org.policy_changed');
    expect(changed).toMatchObject({
      org: 'acme',
      before: { maxLifetime: null },
      after: { maxLifetime: '90d' },
      actor: { userId: 'alice' },
    });
  });

  it('approve and deny: ids that are not tokens reaching the org are NotFound, and nothing changes', async () => {
    const { auth, owner, bob } = await setup();
    const acme = auth.client(owner).org('acme');
    await acme.policy.set({ requireApproval: true });
    const { info } = await auth.client(bob).token.create({ name: 'ci', scopes: [READ('acme/web')] });
    const err = await rejection(acme.requests.approve([info.id, 'nope']));
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toContain('nope');
    expect((await acme.requests.list()).map((r) => r.id)).toEqual([info.id]);
    expect(await rejection(acme.requests.approve([]))).toBeInstanceOf(ValidationError);
    expect(await rejection(acme.requests.deny([info.id], { reason: 'x'.repeat(1025) }))).toBeInstanceOf(ValidationError);
  });

  it('justification: one line of at most 1 024 characters', async () => {
    const { auth, bob } = await setup();
    expect(await rejection(auth.client(bob).token.create({ name: 'a', justification: 'x'.repeat(1025) }))).toBeInstanceOf(ValidationError);
    expect(await rejection(auth.client(bob).token.create({ name: 'a', justification: 'two\nlines' }))).toBeInstanceOf(ValidationError);
  });

  it('tokens.list filters by owner and status; the inventory never shows a token value', async () => {
    const { auth, owner, bob } = await setup();
    const t = await pat(auth, bob, { name: 'ci', scopes: [READ('acme/web')] });
    await pat(auth, owner, { name: 'mine', scopes: [READ('acme/web')] });
    const list = await auth.client(owner).org('acme').tokens.list({ owner: 'bob' });
    expect(list.map((x) => x.id)).toEqual([t.id]);
    expect(list[0]).toMatchObject({ name: 'ci', ownerId: 'bob', status: 'active', scopes: [READ('acme/web')], access: 'approved' });
    expect(JSON.stringify(list)).not.toContain(t.token);
    expect(await auth.client(owner).org('acme').tokens.list({ status: 'expired' })).toEqual([]);
  });
});

describe('a store without governance', () => {
  it('the org API answers UnavailableError and no policy applies', async () => {
    const base = new MemoryTokenStore();
    const plain: TokenStore = {
      insert: (r, at) => base.insert(r, at),
      readChain: (id) => base.readChain(id),
      listByOwner: (o) => base.listByOwner(o),
      revoke: (ids, at) => base.revoke(ids, at),
    };
    const t = await testAuth({ roles: ROLES, tokens: plain });
    const owner = await t.auth.authenticate(await t.auth.issueSession('alice'));
    const err = await rejection(t.auth.client(owner).org('acme').policy.get());
    expect((err as Error).message).toContain('keeps no organization policies');
  });
});
