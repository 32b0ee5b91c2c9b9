import { describe, it, expect } from 'vitest';
import { AuthenticationError, ConflictError, ForbiddenError, NotFoundError, UnavailableError, ValidationError } from '../../src/errors';
import type { Principal } from '../../src/core/policy';
import { MemoryTokenStore } from '../../src/stores';
import type { ScopeEntry } from '../../src/core/scopes';
import { testAuth, type TestAuth } from '../support/auth';
import { DAY_MS, T0 } from '../support/clock';
import { rejection } from '../support/errors';

async function session(s: TestAuth, user = 'alice'): Promise<Principal> {
  return s.auth.authenticate(await s.auth.issueSession(user));
}

async function create(s: TestAuth, by: Principal, name: string, scopes?: ScopeEntry[], extra: Record<string, unknown> = {}) {
  const out = await s.auth.client(by).token.create({ name, ...(scopes === undefined ? {} : { scopes }), ...extra });
  return { ...out, principal: await s.auth.authenticate(out.token) };
}

function payloadOf(token: string): { iat: number; exp: number } {
  return JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8'));
}

describe('create', () => {
  it('T3: default expiry 30 days; createdAt/expiresAt equal the JWT iat/exp in whole seconds', async () => {
    const s = await testAuth();
    s.clock.advance(1234); // not a whole second
    const { token, info, warnings } = await s.auth.client(await session(s)).token.create({ name: 'ci', description: 'CI pipeline' });
    const { iat, exp } = payloadOf(token);
    expect(info.createdAt.getTime()).toBe(iat * 1000);
    expect(info.expiresAt.getTime()).toBe(exp * 1000);
    expect(exp - iat).toBe(30 * 86400);
    expect(info).toMatchObject({
      name: 'ci',
      description: 'CI pipeline',
      status: 'active',
      scopes: null,
      parentId: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    // Without scopes the token carries the owner's full access: said once, as a warning.
    expect(warnings).toEqual([expect.stringMatching(/full access/)]);
  });

  it('T3: expiresIn "<N>d" or a number of days from 1 to 365; anything else is a ValidationError at expiresIn', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    expect((await api.create({ name: 'a', expiresIn: '365d' })).info.expiresAt.getTime()).toBe(T0 + 365 * DAY_MS);
    expect((await api.create({ name: 'b', expiresIn: 7 })).info.expiresAt.getTime()).toBe(T0 + 7 * DAY_MS);
    for (const bad of ['0d', '366d', '12h', '30', 1.5, -1, null]) {
      const err = await rejection(api.create({ name: 'c', expiresIn: bad as never }));
      expect((err as ValidationError).issues.map((i) => i.pathText)).toEqual(['expiresIn']);
    }
  });

  it('S8: name, description and unknown fields are checked, every issue reported at once', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const err = await rejection(
      api.create({ name: 'bad name', description: 'x'.repeat(1025), committerIdentity: 'alice', expire: '1d' } as never),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.pathText).sort()).toEqual(['committerIdentity', 'description', 'expire', 'name']);
    expect(await rejection(api.create(null as never))).toBeInstanceOf(ValidationError);
    expect(await rejection(api.create({ name: 'x'.repeat(65) }))).toBeInstanceOf(ValidationError);
    expect((await api.create({ name: 'A-z_0-9', description: 'd'.repeat(1024) })).info.name).toBe('A-z_0-9');
  });

  it('S4 hostile: a create input whose getters throw is a ValidationError', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const evil = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    expect(await rejection(api.create(evil as never))).toBeInstanceOf(ValidationError);
  });

  it('S4: scopes [] is a ValidationError ("omit scopes for full access"); omitted scopes mean full access', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const err = await rejection(api.create({ name: 'x', scopes: [] }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues[0]?.pathText).toMatch(/^scopes/);
    const full = await create(s, await session(s), 'full');
    expect(s.auth.authorize(full.principal, 'acme/web', 'repo:admin')).toEqual({ allowed: true });
    expect(s.auth.authorize(full.principal, 'acme', 'org:admin')).toEqual({ allowed: true });
  });

  it('S5: scope warnings are passed through', async () => {
    const s = await testAuth();
    const { warnings, info } = await s.auth
      .client(await session(s))
      .token.create({ name: 'x', scopes: [{ resource: 'acme', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }] });
    expect(warnings.length).toBe(1);
    expect(info.scopes).toEqual([{ resource: 'acme', permissions: ['repo:read'] }]);
  });

  it('T8: the token value is returned once and nothing stored can rebuild it', async () => {
    const store = new MemoryTokenStore();
    const s = await testAuth({ tokens: store });
    const { token, info } = await s.auth.client(await session(s)).token.create({ name: 'ci' });
    const signature = token.split('.')[2] as string;
    const stored = JSON.stringify(await store.listByOwner('alice'));
    expect(stored).not.toContain(signature);
    expect(JSON.stringify(info)).not.toContain(signature);
    expect(JSON.stringify(await s.auth.client(await session(s)).token.list())).not.toContain(signature);
  });

  it('T7 hostile: 50 parallel creates of one name: exactly one wins, the others are ConflictError', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => api.create({ name: 'race' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConflictError);
  });

  it('T7: a revoked or expired name may be reused; another user may hold the same name', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    await api.create({ name: 'ci', expiresIn: 1 });
    expect(await rejection(api.create({ name: 'ci' }))).toBeInstanceOf(ConflictError);
    await s.auth.client(await session(s, 'bob')).token.create({ name: 'ci' });
    s.clock.advance(DAY_MS);
    const again = s.auth.client(await session(s)).token;
    const second = await again.create({ name: 'ci' });
    await again.revoke('ci');
    const third = await again.create({ name: 'ci' });
    expect(third.info.id).not.toBe(second.info.id);
    expect((await again.list()).map((i) => i.status)).toEqual(['expired', 'revoked', 'active']);
  });

  it('T9: committerIdentity must be svc:<namespace>/users/Identity/<id>', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    for (const bad of [
      'svc:acme/users/Identity/',
      'svc:acme/users/Identity/a b',
      'svc:../users/Identity/x',
      'svc:a/users/Identity/..',
      5,
    ]) {
      expect(await rejection(api.create({ name: 'x', committerIdentity: bad as never }))).toBeInstanceOf(ValidationError);
    }
    const { info } = await api.create({ name: 'x', committerIdentity: 'svc:acme.io/users/Identity/ci_bot-1' });
    expect(info.committerIdentity).toBe('svc:acme.io/users/Identity/ci_bot-1');
  });
});

describe('children (created by a PAT)', () => {
  it('M4: a child gets the PAT as parent and may not ask for more than it at the same or a broader tier', async () => {
    const s = await testAuth();
    const parent = await create(s, await session(s), 'parent', [{ resource: 'acme/w', permissions: ['repo:read'] }]);
    const api = s.auth.client(parent.principal).token;
    expect(await rejection(api.create({ name: 'c1', scopes: [{ resource: 'acme/w', permissions: ['repo:write'] }] }))).toBeInstanceOf(
      ForbiddenError,
    );
    expect(await rejection(api.create({ name: 'c2', scopes: [{ resource: 'acme', permissions: ['repo:read'] }] }))).toBeInstanceOf(
      ForbiddenError,
    );
    expect(await rejection(api.create({ name: 'c3', scopes: [{ permissions: ['repo:read'] }] }))).toBeInstanceOf(ForbiddenError);
    const ok = await api.create({ name: 'c4', scopes: [{ resource: 'acme/w', permissions: ['repo:read'], allowedMatches: ['Doc/*'] }] });
    expect(ok.info.parentId).toBe(parent.info.id);
  });

  it('M4: parent acme=repo:read allows child acme/w=repo:read; an unscoped parent allows anything', async () => {
    const s = await testAuth();
    const org = await create(s, await session(s), 'org', [{ resource: 'acme', permissions: ['repo:read'] }]);
    await s.auth.client(org.principal).token.create({ name: 'repo', scopes: [{ resource: 'acme/w', permissions: ['repo:read'] }] });
    const full = await create(s, await session(s), 'full');
    const child = await create(s, full.principal, 'any', [{ resource: 'acme', permissions: ['org:admin'] }]);
    expect(s.auth.authorize(child.principal, 'acme', 'org:admin')).toEqual({ allowed: true });
  });

  it('M4/A5: a scoped grandparent still limits a child of an unscoped parent', async () => {
    const s = await testAuth();
    const gp = await create(s, await session(s), 'gp', [{ resource: 'acme/w', permissions: ['repo:read'] }]);
    const p = await create(s, gp.principal, 'p');
    expect(s.auth.authorize(p.principal, 'acme/w', 'repo:write')).toEqual({ allowed: false, reason: 'scope' });
    expect(
      await rejection(
        s.auth.client(p.principal).token.create({ name: 'c', scopes: [{ resource: 'acme/w', permissions: ['repo:write'] }] }),
      ),
    ).toBeInstanceOf(ForbiddenError);
    const c = await create(s, p.principal, 'c');
    expect(s.auth.authorize(c.principal, 'acme/w', 'repo:read')).toEqual({ allowed: true });
    expect(s.auth.authorize(c.principal, 'acme/x', 'repo:read')).toEqual({ allowed: false, reason: 'scope' });
  });

  it("M5: an entry above the creator's role is accepted with a warning; the role cap applies at decision time", async () => {
    const s = await testAuth();
    const { warnings, principal } = await create(s, await session(s, 'bob'), 'x', [
      { resource: 'acme/w', permissions: ['repo:read', 'repo:write'] },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('acme/w=repo:write');
    expect(s.auth.authorize(principal, 'acme/w', 'repo:write')).toEqual({ allowed: false, reason: 'role' });
    const within = await create(s, await session(s, 'bob'), 'y', [{ resource: 'acme', permissions: ['role:viewer'] }]);
    expect(within.warnings).toEqual([]);
  });

  it("T3: a child's expiry is clamped to its parent's (and every ancestor's) with a warning", async () => {
    const s = await testAuth();
    const gp = await create(s, await session(s), 'gp', undefined, { expiresIn: '3d' });
    s.clock.advance(DAY_MS);
    const p = await create(s, gp.principal, 'p', undefined, { expiresIn: '1d' });
    expect(p.warnings.filter((w) => /clamped/.test(w))).toEqual([]);
    const c = await create(s, p.principal, 'c', undefined, { expiresIn: '30d' });
    expect(c.info.expiresAt.getTime()).toBe(T0 + 2 * DAY_MS);
    expect(c.warnings.filter((w) => /clamped/.test(w))).toHaveLength(1);
    expect(payloadOf(c.token).exp * 1000).toBe(T0 + 2 * DAY_MS);
  });

  it("T9: a child without committerIdentity does not inherit its parent's; it falls back to the owner's", async () => {
    const s = await testAuth();
    const p = await create(s, await session(s), 'p', undefined, { committerIdentity: 'svc:acme/users/Identity/bot' });
    const c = await create(s, p.principal, 'c');
    expect(s.auth.committer(p.principal)).toBe('svc:acme/users/Identity/bot');
    expect(c.info.committerIdentity).toBeNull();
    expect(s.auth.committer(c.principal)).toBe('svc:default/users/Identity/alice');
  });

  it('a PAT revoked after it authenticated can no longer manage (AuthenticationError revoked)', async () => {
    const s = await testAuth();
    const p = await create(s, await session(s), 'p');
    await s.auth.revokeToken(p.info.id);
    const err = await rejection(s.auth.client(p.principal).token.create({ name: 'c' }));
    expect((err as AuthenticationError).reason).toBe('revoked');
    expect(((await rejection(s.auth.client(p.principal).token.list())) as AuthenticationError).reason).toBe('revoked');
  });

  it('an insert answered parent_inactive is AuthenticationError revoked', async () => {
    const store = new MemoryTokenStore();
    const s = await testAuth({ tokens: store });
    const p = await create(s, await session(s), 'p');
    store.insert = async () => 'parent_inactive';
    expect(((await rejection(s.auth.client(p.principal).token.create({ name: 'c' }))) as AuthenticationError).reason).toBe('revoked');
  });

  it('T5 hostile: a store failure during management is UnavailableError', async () => {
    const store = new MemoryTokenStore();
    const s = await testAuth({ tokens: store });
    const me = await session(s);
    store.listByOwner = async () => {
      throw new Error('db down');
    };
    expect(await rejection(s.auth.client(me).token.list())).toBeInstanceOf(UnavailableError);
  });
});

describe('list, get, revoke', () => {
  it("M1: a session lists all of its user's PATs in creation order, including children, never component tokens", async () => {
    const s = await testAuth();
    const a = await create(s, await session(s), 'a');
    await create(s, a.principal, 'a-child');
    await s.auth.issueComponentToken('alice');
    await create(s, await session(s, 'bob'), 'bobs');
    const names = (await s.auth.client(await session(s)).token.list()).map((i) => i.name);
    expect(names).toEqual(['a', 'a-child']);
  });

  it('M2: a PAT manages only its descendant subtree, not itself; outside names are NotFoundError, its own revoke is ForbiddenError', async () => {
    const s = await testAuth();
    const me = await session(s);
    const a = await create(s, me, 'a');
    await create(s, me, 'sibling');
    const child = await create(s, a.principal, 'child');
    await create(s, child.principal, 'grandchild');
    const api = s.auth.client(a.principal).token;
    expect((await api.list()).map((i) => i.name)).toEqual(['child', 'grandchild']);
    expect(await rejection(api.get('a'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(api.get('sibling'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(api.revoke('sibling'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(api.revoke('a'))).toBeInstanceOf(ForbiddenError);
    expect((await api.get('grandchild')).status).toBe('active');
    expect((await api.revoke('grandchild')).status).toBe('revoked');
    expect((await s.auth.client(me).token.get('sibling')).status).toBe('active');
  });

  it('M3: a component token is refused every management call', async () => {
    const s = await testAuth();
    const p = await s.auth.authenticate(await s.auth.issueComponentToken('alice'));
    const api = s.auth.client(p).token;
    expect(await rejection(api.create({ name: 'x' }))).toBeInstanceOf(ForbiddenError);
    expect(await rejection(api.list())).toBeInstanceOf(ForbiddenError);
    expect(await rejection(api.get('x'))).toBeInstanceOf(ForbiddenError);
    expect(await rejection(api.revoke('x'))).toBeInstanceOf(ForbiddenError);
  });

  it('T4: status is derived when read: active, expired once now >= expiresAt, revoked', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    await api.create({ name: 'short', expiresIn: 1 });
    await api.create({ name: 'gone' });
    await api.revoke('gone');
    expect((await api.get('short')).status).toBe('active');
    s.clock.advance(DAY_MS);
    const later = s.auth.client(await session(s)).token;
    expect((await later.get('short')).status).toBe('expired');
    expect((await later.get('gone')).status).toBe('revoked');
  });

  it('T7: get returns the active token of a name, else the newest', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const first = await api.create({ name: 'ci' });
    await api.revoke('ci');
    const second = await api.create({ name: 'ci' });
    expect((await api.get('ci')).id).toBe(second.info.id);
    await api.revoke('ci');
    expect((await api.get('ci')).id).toBe(second.info.id);
    expect(first.info.id).not.toBe(second.info.id);
  });

  it('T7: revoke takes the newest non-revoked token; when all are revoked it returns the newest unchanged', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    await api.create({ name: 'ci' });
    const first = await api.revoke('ci');
    expect(first.revokedAt).toEqual(new Date(T0));
    s.clock.advance(1000);
    const again = await api.revoke('ci');
    expect(again).toEqual(first);
    expect(await rejection(api.revoke('nope'))).toBeInstanceOf(NotFoundError);
  });

  it('T6: revoking a PAT revokes its whole subtree, in the records and at authenticate', async () => {
    const s = await testAuth();
    const me = await session(s);
    const a = await create(s, me, 'a');
    const b = await create(s, a.principal, 'b');
    const c = await create(s, b.principal, 'c');
    await s.auth.client(me).token.revoke('a');
    for (const t of [a, b, c]) {
      expect(((await rejection(s.auth.authenticate(t.token))) as AuthenticationError).reason).toBe('revoked');
    }
    expect((await s.auth.client(me).token.list()).map((i) => i.status)).toEqual(['revoked', 'revoked', 'revoked']);
  });

  it('names passed to get and revoke are validated', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    for (const bad of [undefined, 5, '', 'a/b', '__proto__ ']) {
      expect(await rejection(api.get(bad as never))).toBeInstanceOf(ValidationError);
      expect(await rejection(api.revoke(bad as never))).toBeInstanceOf(ValidationError);
    }
  });

  it('an expired session may not manage tokens', async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice', { expiresIn: '1h' }));
    s.clock.advance(3600_000);
    expect(((await rejection(s.auth.client(me).token.list())) as AuthenticationError).reason).toBe('expired');
  });
});

describe('committer (T9)', () => {
  it('override, else the token identity, else identityOf, else the default', async () => {
    const s = await testAuth();
    const me = await session(s);
    expect(s.auth.committer(me)).toBe('svc:default/users/Identity/alice');
    expect(s.auth.committer(me, 'svc:x/users/Identity/y')).toBe('svc:x/users/Identity/y');
    expect(() => s.auth.committer(me, 'alice')).toThrow(ValidationError);
    const custom = await testAuth({ identityOf: (u) => `svc:corp/users/Identity/${u}` });
    expect(custom.auth.committer(await session(custom))).toBe('svc:corp/users/Identity/alice');
  });

  it('an identityOf that returns a bad identity or throws is refused, never passed through', async () => {
    const bad = await testAuth({ identityOf: () => 'svc:corp/users/Identity/a b' });
    expect(() => bad.auth.committer(undefined as never)).toThrow(ValidationError);
    const me = await bad.auth.authenticate(await bad.auth.issueSession('alice'));
    expect(() => bad.auth.committer(me)).toThrow(ValidationError);
    const throwing = await testAuth({
      identityOf: () => {
        throw new Error('directory down');
      },
    });
    const p = await throwing.auth.authenticate(await throwing.auth.issueSession('alice'));
    expect(() => throwing.auth.committer(p)).toThrow(UnavailableError);
  });
});
