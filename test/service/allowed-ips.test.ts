/**
 * `allowedIps`: a token limited to address ranges is refused (ForbiddenError,
 * reason `ip`) from anywhere else and when the address is unknown; a child's
 * list must lie inside its parent's, and a child without one is limited by the
 * parent's (narrowing only, property-tested end to end).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../src/errors';
import type { AuthEvent } from '../../src/service';
import { testAuth } from '../support/auth';
import { issuesOf, rejection } from '../support/errors';

async function session(s: Awaited<ReturnType<typeof testAuth>>) {
  return s.auth.authenticate(await s.auth.issueSession('alice'));
}

async function ipRefusal(p: Promise<unknown>): Promise<ForbiddenError> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(ForbiddenError);
  expect((err as ForbiddenError).reason).toBe('ip');
  return err as ForbiddenError;
}

describe('allowedIps', () => {
  it('a token limited to ranges works from inside them and is refused from outside, and without a known address', async () => {
    const events: AuthEvent[] = [];
    const s = await testAuth({ onEvent: (e) => void events.push(e) });
    const { token, info } = await s.auth
      .client(await session(s))
      .token.create({ name: 'ci', allowedIps: ['203.0.113.0/24', '2001:DB8::/32'] });
    expect(info.allowedIps).toEqual(['203.0.113.0/24', '2001:db8::/32']);
    for (const address of ['203.0.113.7', '::ffff:203.0.113.200', '2001:db8:1::9']) {
      expect((await s.auth.authenticate(token, { address })).kind).toBe('pat');
    }
    const err = await ipRefusal(s.auth.authenticate(token, { address: '198.51.100.1' }));
    expect(err.tokenId).toBe(info.id);
    expect(err.message).not.toContain(token);
    await ipRefusal(s.auth.authenticate(token));
    await ipRefusal(s.auth.authenticate(token, { address: 'not an address' }));
    await s.auth.flush();
    const failed = events.filter((e) => e.type === 'auth.failed');
    expect(failed).toHaveLength(3);
    expect(failed[0]).toMatchObject({ reason: 'ip', actor: { kind: 'pat', userId: 'alice', tokenId: info.id } });
  });

  it('revoked and expired come first: a refused address is no oracle for a dead token', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const { token } = await api.create({ name: 'ci', allowedIps: ['203.0.113.0/24'] });
    await api.revoke('ci');
    const err = await rejection(s.auth.authenticate(token, { address: '198.51.100.1' }));
    expect(err).toMatchObject({ code: 'authentication', reason: 'revoked' });
  });

  it('create refuses a bad list with every problem at once, and an empty one', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const issues = issuesOf(await rejection(api.create({ name: 'ci', allowedIps: ['10.1.2.3/8', 'nope', '10.0.0.0/8', '10.0.0.0/8'] })));
    expect(issues.map((i) => i.pathText)).toEqual(['allowedIps[0]', 'allowedIps[1]', 'allowedIps[3]']);
    expect(issues[0]?.message).toContain('10.0.0.0/8');
    expect(issuesOf(await rejection(api.create({ name: 'ci', allowedIps: [] }))).map((i) => i.pathText)).toEqual(['allowedIps']);
    const tooMany = Array.from({ length: 65 }, (_, i) => `10.0.${i}.0/24`);
    expect(issuesOf(await rejection(api.create({ name: 'ci', allowedIps: tooMany })))[0]?.message).toContain('64');
    expect(issuesOf(await rejection(api.create({ name: 'ci', allowedIps: '10.0.0.0/8' as never })))[0]?.pathText).toBe('allowedIps');
  });

  it('a child inherits its parent’s list, may narrow it, and may not widen it (ForbiddenError)', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const { token: parent } = await api.create({ name: 'parent', allowedIps: ['10.0.0.0/8'] });
    const asParent = s.auth.client(await s.auth.authenticate(parent, { address: '10.1.2.3' })).token;
    const { token: plain, info: plainInfo } = await asParent.create({ name: 'plain' });
    expect(plainInfo.allowedIps).toBeNull();
    await ipRefusal(s.auth.authenticate(plain, { address: '203.0.113.7' })); // the parent's list holds
    expect((await s.auth.authenticate(plain, { address: '10.9.9.9' })).kind).toBe('pat');
    const { token: narrow } = await asParent.create({ name: 'narrow', allowedIps: ['10.1.0.0/16'] });
    await ipRefusal(s.auth.authenticate(narrow, { address: '10.9.9.9' }));
    expect((await s.auth.authenticate(narrow, { address: '10.1.0.1' })).kind).toBe('pat');
    for (const wide of [['0.0.0.0/0'], ['10.0.0.0/7'], ['10.1.0.0/16', '192.0.2.1'], ['2001:db8::/32']]) {
      const err = await rejection(asParent.create({ name: 'wide', allowedIps: wide }));
      expect(err).toBeInstanceOf(ForbiddenError);
      expect((err as ForbiddenError).message).toContain('allowedIps');
    }
  });

  it('property: whatever lists a parent and a child get, the child is accepted from no address its parent is refused from (narrowing only)', async () => {
    const s = await testAuth();
    const api = s.auth.client(await session(s)).token;
    const octet = fc.integer({ min: 0, max: 3 });
    const range = fc.tuple(octet, octet, fc.constantFrom(8, 16, 24, 32)).map(([a, b, p]) => {
      const bytes = [10, a, b, 0];
      for (let bit = p; bit < 32; bit++) bytes[bit >> 3] = (bytes[bit >> 3] as number) & ~(0x80 >> (bit & 7));
      return `${bytes.join('.')}/${p}`;
    });
    const list = fc.uniqueArray(range, { minLength: 1, maxLength: 3 });
    const address = fc.tuple(octet, octet, octet).map(([a, b, c]) => `10.${a}.${b}.${c}`);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        list,
        fc.option(list, { nil: undefined }),
        fc.array(address, { minLength: 1, maxLength: 6 }),
        async (pl, cl, addresses) => {
          n++;
          const { token: parent } = await api.create({ name: `p${n}`, allowedIps: pl });
          const inside = pl[0]!.split('/')[0] as string;
          const asParent = s.auth.client(await s.auth.authenticate(parent, { address: inside })).token;
          let child: string;
          try {
            child = (await asParent.create({ name: `c${n}`, ...(cl === undefined ? {} : { allowedIps: cl }) })).token;
          } catch (err) {
            expect(err).toBeInstanceOf(ForbiddenError); // refused as wider: nothing to check
            return;
          }
          for (const a of addresses) {
            const parentOk = await s.auth.authenticate(parent, { address: a }).then(
              () => true,
              () => false,
            );
            const childOk = await s.auth.authenticate(child, { address: a }).then(
              () => true,
              () => false,
            );
            if (childOk) expect(parentOk).toBe(true);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a token without allowedIps works from anywhere and with no address at all', async () => {
    const s = await testAuth();
    const { token, info } = await s.auth.client(await session(s)).token.create({ name: 'ci' });
    expect(info.allowedIps).toBeNull();
    expect((await s.auth.authenticate(token)).kind).toBe('pat');
    expect((await s.auth.authenticate(token, { address: '198.51.100.1' })).kind).toBe('pat');
  });
});
