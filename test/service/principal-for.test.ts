/**
 * Issue 18, item 11: `auth.principalFor(userId)` gives a server that signed
 * its user in by its own means a session principal, without minting and
 * verifying a token: read like any session (roles from `members`, now).
 */
import { describe, expect, it } from 'vitest';
import { UnavailableError, ValidationError } from '../../src/errors';
import { testAuth } from '../support/auth';
import { T0 } from '../support/clock';
import { rejection } from '../support/errors';

describe('auth.principalFor (issue 18, item 11)', () => {
  it('is a session principal that decides, manages and commits as the one authenticate gives for a session token', async () => {
    const s = await testAuth();
    const direct = await s.auth.principalFor('alice');
    const viaToken = await s.auth.authenticate(await s.auth.issueSession('alice'));
    expect(direct).toEqual({ kind: 'session', userId: 'alice', expiresAt: new Date(T0 + 12 * 3600_000), serviceAccount: null });
    // The same but for the session's record id: principalFor mints no token, so it has no record.
    expect(viaToken).toEqual({ ...direct, tokenId: expect.any(String) as string });
    expect(Object.isFrozen(direct)).toBe(true);
    for (const [resource, permission] of [
      ['acme/web', 'repo:admin'],
      ['acme', 'org:admin'],
      ['other/web', 'repo:read'],
      ['acme/web', 'org:read'],
    ] as const) {
      expect(s.auth.authorize(direct, resource, permission)).toEqual(s.auth.authorize(viaToken, resource, permission));
    }
    const { info } = await s.auth.client(direct).token.create({ name: 'ci' });
    expect((await s.auth.client(viaToken).token.get('ci')).id).toBe(info.id);
    expect(s.auth.committer(direct)).toBe('svc:default/users/Identity/alice');
  });

  it('roles are live: a role changed in members holds for the next principal', async () => {
    const s = await testAuth();
    expect(s.auth.authorize(await s.auth.principalFor('bob'), 'acme/web', 'repo:write')).toEqual({ allowed: false, reason: 'role' });
    s.roles.set('bob', { orgs: { acme: 'editor' } });
    expect(s.auth.authorize(await s.auth.principalFor('bob'), 'acme/web', 'repo:write')).toEqual({ allowed: true });
    s.roles.delete('bob');
    expect(s.auth.authorize(await s.auth.principalFor('bob'), 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'role' });
  });

  it('a bad user id is a ValidationError at userId; a failing membership source is UnavailableError', async () => {
    const s = await testAuth();
    for (const bad of ['', 'a b', 'x'.repeat(300), 'a\u0000b', 42, null, undefined, 'alice@example.com']) {
      const err = await rejection(s.auth.principalFor(bad as string));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues[0]?.pathText).toBe('userId');
    }
    // With identityOf, any user id without whitespace or control characters is fine.
    const custom = await testAuth({ identityOf: () => 'svc:acme/users/Identity/x' });
    expect((await custom.auth.principalFor('alice@example.com')).userId).toBe('alice@example.com');
    const down = await testAuth({
      members: {
        rolesOf: () => {
          throw new Error('directory down');
        },
      },
    });
    expect(await rejection(down.auth.principalFor('alice'))).toBeInstanceOf(UnavailableError);
    const junk = await testAuth({ members: { rolesOf: async () => ({ orgs: { acme: 'god' } }) as never } });
    expect(await rejection(junk.auth.principalFor('alice'))).toBeInstanceOf(UnavailableError);
  });

  it('belongs to the Auth that made it, like every principal', async () => {
    const s = await testAuth();
    const other = await testAuth();
    const p = await s.auth.principalFor('alice');
    expect(other.auth.authorize(p, 'acme/web', 'repo:read')).toEqual({ allowed: false, reason: 'invalid' });
    expect(() => other.auth.client(p)).toThrow(ValidationError);
  });
});
