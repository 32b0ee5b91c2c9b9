/**
 * Issue 18, item 11: a PAT asked to revoke itself was told that no such token
 * exists. M2's NotFound is there so that names outside the subtree leak
 * nothing; a token's own name leaks nothing, so it is told why instead.
 */
import { describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError } from '../../src/errors';
import { testAuth } from '../support/auth';
import { rejection } from '../support/errors';

describe('a PAT revoking itself (issue 18, item 11)', () => {
  it('is a ForbiddenError saying why and who can; the token stays active; its session and its parent can revoke it', async () => {
    const s = await testAuth();
    const me = await s.auth.authenticate(await s.auth.issueSession('alice'));
    const parent = await s.auth.client(me).token.create({ name: 'parent' });
    const parentP = await s.auth.authenticate(parent.token);
    const child = await s.auth.client(parentP).token.create({ name: 'child' });
    const childP = await s.auth.authenticate(child.token);

    const err = await rejection(s.auth.client(childP).token.revoke('child'));
    expect(err).toBeInstanceOf(ForbiddenError);
    expect((err as Error).message).toBe('a token cannot revoke itself: a session of its user, or the token that created it, can');
    expect((await s.auth.authenticate(child.token)).tokenId).toBe(child.info.id);

    // Names outside its subtree are still NotFound: nothing leaks.
    expect(await rejection(s.auth.client(childP).token.revoke('parent'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(s.auth.client(childP).token.revoke('nobody'))).toBeInstanceOf(NotFoundError);

    expect((await s.auth.client(parentP).token.revoke('child')).status).toBe('revoked');
    expect(await rejection(s.auth.client(parentP).token.revoke('parent'))).toBeInstanceOf(ForbiddenError);
    expect((await s.auth.client(me).token.revoke('parent')).status).toBe('revoked');
  });
});
