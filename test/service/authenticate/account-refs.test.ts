/**
 * `accountRefs`, the per-Auth memo of parsed service-account ids that a principal and its roles share:
 * it must answer exactly as `parseServiceAccountId` for any text, hostile or not, hand out frozen refs
 * (one is shared by every principal of an account), and stay bounded under a flood of distinct ids.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseServiceAccountId } from '../../../src/core/vocabulary';
import { accountRefs } from '../../../src/service/authenticate/accounts';
import { testAuth } from '../../support/auth';

const idLike = fc.oneof(
  fc.string(),
  fc
    .tuple(fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,12}$/), fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,12}$/))
    .map(([o, n]) => `sa:${o}/${n}`),
  fc.string().map((s) => `sa:${s}`),
  fc.constantFrom(
    'sa:',
    'sa:/',
    'sa:acme/',
    'sa:/bot',
    'sa:Acme/bot',
    'sa:acme/b/c',
    `sa:${'a'.repeat(120)}/${'b'.repeat(90)}`,
    'SA:acme/bot',
  ),
);

describe('accountRefs', () => {
  it('invariant: answers as parseServiceAccountId, twice, with the same frozen ref (fast-check)', () => {
    const refOf = accountRefs();
    fc.assert(
      fc.property(idLike, (id) => {
        const first = refOf(id);
        expect(first).toEqual(parseServiceAccountId(id));
        const again = refOf(id);
        expect(again).toBe(first);
        if (first !== null) expect(Object.isFrozen(first)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('a flood of distinct ids is answered right every time and the memo starts over rather than grow', () => {
    const refOf = accountRefs();
    const kept = refOf('sa:acme/ci-bot');
    for (let i = 0; i < 5000; i++) expect(refOf(`sa:org${i}/bot${i}`)).toEqual({ org: `org${i}`, name: `bot${i}` });
    // Forgotten in the flood, parsed again: an equal ref, maybe another object.
    expect(refOf('sa:acme/ci-bot')).toEqual(kept);
  });

  it("a service account's principals share one frozen ref; a user's principal has none", async () => {
    const { auth } = await testAuth({ roles: { alice: { orgs: { acme: 'owner' } } } });
    const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
    await alice.org('acme').serviceAccounts.create({ name: 'ci-bot', role: 'editor' });
    const { token } = await alice.org('acme').serviceAccount('ci-bot').token.create({ name: 'deploy' });
    const [a, b] = [await auth.authenticate(token), await auth.authenticate(token)];
    expect(a.serviceAccount).toEqual({ org: 'acme', name: 'ci-bot' });
    expect(b.serviceAccount).toBe(a.serviceAccount);
    expect(Object.isFrozen(a.serviceAccount)).toBe(true);
    expect((await auth.authenticate(await auth.issueSession('alice'))).serviceAccount).toBeNull();
  });
});
