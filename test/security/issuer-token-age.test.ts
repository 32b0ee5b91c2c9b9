/**
 * Attack (issue 28, item 19): a trusted issuer's token 100 years long, or issued in the
 * future, was accepted: one leaked token (or one signing key misused once) would be a
 * credential for life. `maxTokenAge` (per issuer, default 24h) caps `exp - iat` (or
 * `exp - now` without `iat`), and `iat` may not lie in the future beyond the clock
 * tolerance. A real node:http IdP on loopback, the pinned clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAuth } from '../../src/service';
import { generateKeyRing } from '../../src/tokens';
import { NOW_SEC } from '../support/clock';
import { pathsOf } from '../support/errors';
import { issuerSetup, reasonOf, type IssuerSetup } from '../support/issuer-fixture';

const HOUR = 3600;
const YEAR = 365 * 24 * HOUR;

let s: IssuerSetup;
afterEach(async () => {
  await s.ks.close();
});

describe("a trusted issuer's token lifetime", () => {
  it('a token 100 years long is refused (malformed); one of exactly 24 hours is accepted', async () => {
    s = await issuerSetup();
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ exp: NOW_SEC + 100 * YEAR })))).toBe('malformed');
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ exp: NOW_SEC + 24 * HOUR + 1 })))).toBe('malformed');
    const p = await s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ exp: NOW_SEC + 24 * HOUR })));
    expect(p.userId).toBe(s.user('alice'));
  });

  it('an old iat with a far exp is as long as it says, even if little of it is left', async () => {
    s = await issuerSetup();
    const token = await s.ks.sign(s.ks.first, s.claims({ iat: NOW_SEC - 30 * 24 * HOUR, exp: NOW_SEC + 60 }));
    expect(await reasonOf(s.auth, token)).toBe('malformed');
  });

  it('without iat, what is left of it must fit: exp 100 years ahead is refused', async () => {
    s = await issuerSetup();
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ iat: undefined, exp: NOW_SEC + 100 * YEAR })))).toBe('malformed');
    await expect(s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ iat: undefined })))).resolves.toMatchObject({
      kind: 'session',
    });
  });

  it('a token issued in the future is refused (not_yet_valid); within the clock tolerance (5 s) it is accepted', async () => {
    s = await issuerSetup();
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ iat: NOW_SEC + 3600, exp: NOW_SEC + 7200 })))).toBe(
      'not_yet_valid',
    );
    await expect(s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ iat: NOW_SEC + 5 })))).resolves.toMatchObject({
      kind: 'session',
    });
  });

  it('maxTokenAge sets the cap per issuer, and is checked when createAuth builds', async () => {
    s = await issuerSetup({ maxTokenAge: '10m' });
    expect(await reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ exp: NOW_SEC + 11 * 60 })))).toBe('malformed');
    await expect(s.auth.authenticate(await s.ks.sign(s.ks.first, s.claims({ exp: NOW_SEC + 10 * 60 })))).resolves.toMatchObject({
      kind: 'session',
    });
    const keys = await generateKeyRing();
    for (const maxTokenAge of ['31d', '0h', '1y', 3600]) {
      const build = () =>
        createAuth({
          issuer: 'https://svc.test',
          keys,
          members: { rolesOf: () => ({}) },
          trustedIssuers: [{ issuer: 'https://idp.example.com', audience: 'api', maxTokenAge: maxTokenAge as string }],
        });
      expect(pathsOf(build)).toEqual(['trustedIssuers[0].maxTokenAge']);
    }
  });
});
