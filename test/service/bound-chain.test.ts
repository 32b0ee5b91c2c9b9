/**
 * Defense in depth for key-bound tokens: a chain whose head is unbound below a
 * bound ancestor cannot come from `create` (a child inherits the binding), so
 * when a store hands one back (it lost the field, or it was edited by hand),
 * the token is refused rather than taken without a proof.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../src/errors';
import { MemoryTokenStore, type TokenRecord } from '../../src/stores';
import { testAuth } from '../support/auth';
import { dpopHeaders, newKey } from '../support/dpop';

/** A memory store that drops the bound key of the records named `lossy`. */
class LossyStore extends MemoryTokenStore {
  override insert(record: TokenRecord, now: Date) {
    return super.insert(record.name === 'lossy' ? { ...record, boundKey: null } : record, now);
  }
}

const URL_ = 'https://api.test/whoami';

describe('a bound chain with an unbound head', () => {
  it('attack: a child whose store lost its binding is refused (reason bound), with or without a proof', async () => {
    const s = await testAuth({ tokens: new LossyStore(), everyone: { orgs: { acme: 'editor' } } });
    const key = await newKey();
    const nowSec = (): number => Math.floor(s.clock.now().getTime() / 1000);
    const alice = s.auth.client(await s.auth.authenticate(await s.auth.issueSession('alice')));
    const parent = await alice.token.create({ name: 'parent', bindKey: key.publicJwk });
    const take = async (token: string): Promise<unknown> =>
      s.auth.authenticateRequest(new Request(URL_, { headers: await dpopHeaders(key, token, { url: URL_, iatSec: nowSec() }) }));
    const p = (await take(parent.token)) as Awaited<ReturnType<typeof s.auth.authenticate>>;
    const child = await s.auth.client(p).token.create({ name: 'lossy' });
    expect(child.info.boundKey).toBe(key.thumbprint); // what create meant
    expect((await s.store.readChain(child.info.id))?.[0]?.boundKey ?? null).toBeNull(); // what the store kept

    for (const attempt of [() => take(child.token), () => s.auth.authenticate(child.token)]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthenticationError);
      expect((err as AuthenticationError).reason).toBe('bound');
    }
    // A sibling the store kept bound still works.
    const kept = await s.auth.client(p).token.create({ name: 'kept' });
    await expect(take(kept.token)).resolves.toBeDefined();
  });
});
