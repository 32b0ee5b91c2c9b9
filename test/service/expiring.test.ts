import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { testAuth } from '../support/auth';
import { DAY_MS, T0 } from '../support/clock';
import { rejection } from '../support/errors';

const READ = [{ resource: 'acme/web', permissions: ['repo:read'] }];

describe('token.list({ expiringWithin })', () => {
  it('returns only active tokens expiring within the window (the same forms as expiresIn)', async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const api = s.auth.client(me).token;
    await api.create({ name: 'soon', scopes: READ, expiresIn: '3d' });
    await api.create({ name: 'edge', scopes: READ, expiresIn: '7d' });
    await api.create({ name: 'later', scopes: READ, expiresIn: '30d' });
    await api.create({ name: 'gone', scopes: READ, expiresIn: '1d' });
    await api.revoke('gone');
    expect((await api.list({ expiringWithin: '7d' })).map((t) => t.name)).toEqual(['soon', 'edge']);
    expect((await api.list({ expiringWithin: 3 })).map((t) => t.name)).toEqual(['soon']);
    s.clock.advance(4 * DAY_MS); // 'soon' has expired: no longer "expiring"
    const later = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice'))).token;
    expect((await later.list({ expiringWithin: '7d' })).map((t) => t.name)).toEqual(['edge']);
    expect((await later.list()).map((t) => t.name)).toEqual(['soon', 'edge', 'later', 'gone']);
  });

  it.each([['7h'], ['0d'], [0], ['366d'], [-1], [null], ['7 d']])(
    'expiringWithin %j is a ValidationError at expiringWithin',
    async (value) => {
      const s = await testAuth();
      const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
      const err = await rejection(s.auth.client(me).token.list({ expiringWithin: value as string }));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]?.pathText).toBe('expiringWithin');
    },
  );

  it('unknown list options are refused (a misspelt filter must not list everything)', async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const err = await rejection(s.auth.client(me).token.list({ expiring: '7d' } as never));
    expect(err).toMatchObject({ code: 'validation' });
  });
});

describe('auth.tokensOf(userId)', () => {
  it("lists a user's PATs for an admin screen, without a credential; component records are not listed", async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const { info } = await s.auth.client(me).token.create({ name: 'ci', scopes: READ });
    await s.auth.issueComponentToken('alice');
    const listed = await s.auth.tokensOf('alice');
    expect(listed.map((t) => t.id)).toEqual([info.id]);
    expect(listed[0]).toMatchObject({ name: 'ci', status: 'active', lastUsedAt: null });
    expect(Object.keys(listed[0] ?? {})).not.toContain('token');
    expect(await s.auth.tokensOf('bob')).toEqual([]);
  });

  it.each([[''], [42], ['a\u0000b']])('a bad user id %j is a ValidationError', async (userId) => {
    const s = await testAuth();
    expect(await rejection(s.auth.tokensOf(userId as string))).toBeInstanceOf(ValidationError);
  });
});

describe('warnings that mean something', () => {
  it("a token without scopes warns that it carries the owner's full access; a scoped one does not", async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const full = await s.auth.client(me).token.create({ name: 'full' });
    expect(full.warnings).toEqual([expect.stringContaining('full access')]);
    const scoped = await s.auth.client(me).token.create({ name: 'scoped', scopes: READ });
    expect(scoped.warnings).toEqual([]);
  });

  it("an unscoped child of a scoped parent does not warn: it inherits the parent's limits (A5)", async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const parent = await s.auth.client(me).token.create({ name: 'p', scopes: READ });
    const child = await s.auth.client(await s.auth.authenticate(parent.token)).token.create({ name: 'c' });
    expect(child.warnings).toEqual([]);
  });

  it("a child without an explicit expiry takes its parent's remaining lifetime silently; an explicit one that is clamped warns", async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const parent = await s.auth.client(me).token.create({ name: 'p', scopes: READ, expiresIn: '5d' });
    const p = await s.auth.authenticate(parent.token);
    s.clock.advance(DAY_MS);
    const quiet = await s.auth.client(p).token.create({ name: 'quiet', scopes: READ });
    expect(quiet.info.expiresAt.getTime()).toBe(T0 + 5 * DAY_MS);
    expect(quiet.warnings).toEqual([]);
    const loud = await s.auth.client(p).token.create({ name: 'loud', scopes: READ, expiresIn: '30d' });
    expect(loud.info.expiresAt.getTime()).toBe(T0 + 5 * DAY_MS);
    expect(loud.warnings).toEqual([expect.stringContaining('clamped')]);
  });
});
