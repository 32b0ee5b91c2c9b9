/**
 * W1: the form `sa:<org>/<name>` is no user's. Attacks that try to borrow an account's roles by
 * naming its id as a user: a session, a principal, a membership, a trusted issuer's user id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors';
import { MemoryMembershipStore } from '../../../src/stores';
import { testAuth } from '../../support/auth';
import { rejection } from '../../support/errors';
import { issuerSetup, reasonOf, type IssuerSetup } from '../../support/issuer-fixture';

let setup: IssuerSetup | undefined;
afterEach(async () => {
  await setup?.ks.close();
  setup = undefined;
});

describe('attack: a user id in the service account form', () => {
  it('issueSession and principalFor refuse it, naming the reserved form', async () => {
    const { auth } = await testAuth();
    const err = await rejection(auth.issueSession('sa:acme/ci-bot'));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain('reserved for service accounts');
    await expect(auth.principalFor('sa:acme/ci-bot')).rejects.toBeInstanceOf(ValidationError);
    await expect(auth.issueComponentToken('sa:acme/ci-bot')).rejects.toBeInstanceOf(ValidationError);
  });

  it('a membership store refuses it: the host cannot give an account roles elsewhere', async () => {
    const members = new MemoryMembershipStore();
    await expect(members.set('sa:acme/ci-bot', 'globex', 'owner')).rejects.toBeInstanceOf(ValidationError);
  });

  it("a trusted issuer whose user id mapping yields sa:acme/ci-bot is refused, never given the account's roles", async () => {
    setup = await issuerSetup({ userId: () => 'sa:acme/ci-bot' });
    const token = await setup.ks.sign(setup.ks.first, setup.claims());
    expect(await reasonOf(setup.auth, token)).not.toBe('ok');
  });

  it('the membership source is never asked for an sa: id, even a malformed one', async () => {
    const asked: string[] = [];
    const { auth } = await testAuth({ members: { rolesOf: (u) => (asked.push(u), { orgs: { acme: 'owner' } }) } });
    const owner = await auth.principalFor('alice');
    await auth.client(owner).org('acme').serviceAccounts.create({ name: 'ci-bot', role: 'viewer' });
    const { token } = await auth.client(owner).org('acme').serviceAccount('ci-bot').token.create({ name: 't' });
    const p = await auth.authenticate(token);
    expect(auth.authorize(p, 'acme/web', 'repo:write').allowed).toBe(false);
    expect(asked.filter((u) => u.startsWith('sa:'))).toEqual([]);
  });
});
