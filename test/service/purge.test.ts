/**
 * `auth.purge` on each store (issue 28): session records that ended more than
 * the retention ago are removed, with the records under them (an OAuth grant's
 * access tokens); PATs stay for audit; what was removed stays refused (a
 * session whose record is gone is "not on record", a purged grant takes no new
 * access token), and the options are checked.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AuthenticationError, UnavailableError, ValidationError } from '../../src/errors';
import { internalsOf } from '../../src/service';
import { MemoryTokenStore, type TokenStore } from '../../src/stores';
import { testAuth } from '../support/auth';
import { Clock, DAY_MS as DAY } from '../support/clock';
import { dropStores, tokenStores } from '../support/token-stores';

afterAll(dropStores);

const EDITOR = { orgs: { acme: 'editor' as const } };

for (const [name, make] of tokenStores('test/service/purge.test.ts')) {
  describe(`auth.purge on the ${name} store`, () => {
    it('removes the records of sessions ended more than 90 days ago (expired or revoked), keeps younger ones and every PAT', async () => {
      const clock = new Clock();
      const tokens = await make();
      const auth = (await testAuth({ everyone: EDITOR, tokens, clock })).auth;
      const old = await auth.issueSession('alice');
      const me = await auth.authenticate(old);
      const { token: pat } = await auth.client(me).token.create({ name: 'ci', expiresIn: 365 });
      const revoked = await auth.issueSession('alice');
      await auth.revokeToken((await auth.authenticate(revoked)).tokenId as string);
      clock.advance(60 * DAY);
      const younger = await auth.issueSession('alice', { expiresIn: '1h' });
      clock.advance(31 * DAY);
      // The first two ended 91 days ago; the younger one 31 days ago.
      expect(await auth.purge()).toBe(2);
      expect(await auth.purge({ olderThan: '90d' })).toBe(0);
      const left = await tokens.listByOwner('alice');
      expect(left.map((r) => r.kind).sort()).toEqual(['pat', 'session']);
      await expect(auth.authenticate(old)).rejects.toBeInstanceOf(AuthenticationError);
      expect((await auth.authenticate(pat)).userId).toBe('alice');
      expect((await auth.tokensOf('alice')).map((t) => t.name)).toEqual(['ci']);
      expect(await auth.purge({ olderThan: 30 })).toBe(1);
      await expect(auth.authenticate(younger)).rejects.toBeInstanceOf(AuthenticationError);
    });

    it('a session revoked a day ago and purged with olderThan 1 is refused as not on record (a missing record never allows)', async () => {
      const clock = new Clock();
      const tokens = await make();
      const auth = (await testAuth({ everyone: EDITOR, tokens, clock })).auth;
      const session = await auth.issueSession('carol', { expiresIn: '30d' });
      const id = (await auth.authenticate(session)).tokenId as string;
      await auth.revokeToken(id);
      clock.advance(DAY + 1000);
      expect(await auth.purge({ olderThan: 1 })).toBe(1);
      expect(await tokens.readChain(id)).toBeNull();
      // The JWT still verifies (30 days); only the record says no, and a record that is gone says no too.
      await expect(auth.authenticate(session)).rejects.toMatchObject({ reason: 'unknown', message: /not on record/ });
    });

    it("an OAuth grant's record goes with its access tokens' records, and a purged grant takes no new access token", async () => {
      const clock = new Clock();
      const tokens = await make();
      const auth = (await testAuth({ everyone: EDITOR, tokens, clock })).auth;
      const recorder = internalsOf(auth)?.records;
      if (recorder === undefined) throw new Error('no recorder');
      const at = clock.now();
      const grant = { id: `grant-${name}`, userId: 'bob', name: 'oauth-x', description: null, parentId: null, createdAt: at };
      expect(await recorder.record({ ...grant, expiresAt: new Date(at.getTime() + 30 * DAY) })).toBe('ok');
      for (const i of [1, 2]) {
        const access = { ...grant, id: `access-${i}-${name}`, name: 'oauth-access-token', parentId: grant.id };
        expect(await recorder.record({ ...access, expiresAt: new Date(at.getTime() + i * 3_600_000) })).toBe('ok');
      }
      await recorder.revoke(grant.id);
      clock.advance(91 * DAY);
      expect(await auth.purge()).toBe(3);
      expect(await tokens.listByOwner('bob')).toEqual([]);
      expect(await recorder.active(grant.id)).toBe(false);
      const late = { ...grant, id: `access-3-${name}`, name: 'oauth-access-token', parentId: grant.id, createdAt: clock.now() };
      expect(await recorder.record({ ...late, expiresAt: new Date(clock.ms + 3_600_000) })).toBe('parent_inactive');
    });
  });
}

describe('auth.purge options and stores', () => {
  const build = async (tokens: TokenStore) => (await testAuth({ everyone: EDITOR, tokens })).auth;

  it('a bad retention is ValidationError on olderThan; an unknown option too', async () => {
    const auth = await build(new MemoryTokenStore());
    for (const olderThan of ['0d', '3651d', '90', '90h', ' 90d', '090d', 0, 1.5, -3, 3651, true]) {
      await expect(auth.purge({ olderThan } as never)).rejects.toMatchObject({ code: 'validation', issues: [{ pathText: 'olderThan' }] });
    }
    await expect(auth.purge({ olderThen: '90d' } as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(auth.purge('90d' as never)).rejects.toBeInstanceOf(ValidationError);
  });

  it('a store without purgeSessions is ValidationError naming the tokens option; one that answers garbage is UnavailableError', async () => {
    const inner = new MemoryTokenStore();
    const bare: TokenStore = {
      insert: (r, now) => inner.insert(r, now),
      readChain: (id) => inner.readChain(id),
      listByOwner: (o) => inner.listByOwner(o),
      revoke: (ids, at) => inner.revoke(ids, at),
    };
    await expect((await build(bare)).purge()).rejects.toMatchObject({ code: 'validation', issues: [{ pathText: 'tokens' }] });
    for (const answer of [-1, 1.5, '3', null, Number.NaN]) {
      const lying: TokenStore = { ...bare, purgeSessions: async () => answer as number };
      await expect((await build(lying)).purge()).rejects.toBeInstanceOf(UnavailableError);
    }
  });

  it('a store that never answers 0 does not keep the purge going forever', async () => {
    const inner = new MemoryTokenStore();
    let calls = 0;
    const endless: TokenStore = {
      insert: (r, now) => inner.insert(r, now),
      readChain: (id) => inner.readChain(id),
      listByOwner: (o) => inner.listByOwner(o),
      revoke: (ids, at) => inner.revoke(ids, at),
      purgeSessions: async () => {
        calls++;
        return 1;
      },
    };
    expect(await (await build(endless)).purge()).toBe(calls);
    expect(calls).toBe(10_000);
  });
});
