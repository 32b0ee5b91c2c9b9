/**
 * A trusted issuer's keys under stress (T10), against a real node:http IdP on
 * loopback: rotation, outages, floods of random `kid`s and issuers, hostile
 * discovery documents and key sets. Wall-clock time (which paces fetches, as jose
 * keeps it) is moved with a fake `Date`; token validity uses the pinned clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectUnavailable, issuerSetup, reasonOf, type IssuerSetup } from '../support/issuer-fixture';

// The pacing docs/identity-providers.md and docs/security.md promise, written out so the tests hold the
// code to the documents.
/** A key set is refreshed on the first token after it is this old. */
const KEYS_MAX_AGE_MS = 10 * 60_000;
/** An unknown `kid` fetches the key set again at most once per this long. */
const KEY_COOLDOWN_MS = 30_000;
/** While the provider is down, the last key set fetched verifies until it is this old. */
const STALE_KEYS_MS = 60 * 60_000;
/** A failed fetch is remembered (and not tried again) for this long. */
const RETRY_AFTER_FAILURE_MS = 10_000;

let s: IssuerSetup;
let wall = 0;
let serial = 0;
/** Move the wall clock (`Date.now()`) forward. */
const pass = (ms: number): void => {
  wall += ms;
  vi.setSystemTime(wall);
};
/** A good token for alice from `s`, new each time (so no verified-token cache hit). */
const fresh = (key = s.ks.first, header?: { kid?: string }): Promise<string> => s.ks.sign(key, s.claims({ jti: `t${++serial}` }), header);

beforeEach(() => {
  wall = Date.now();
  vi.useFakeTimers({ toFake: ['Date'], now: wall });
});
afterEach(async () => {
  vi.useRealTimers();
  await s.ks.close();
});

describe('trusted issuer keys: rotation and floods', () => {
  it('key rotation: a key rotated in works once 30 s have passed since the last fetch; before that one refetch is not spent', async () => {
    s = await issuerSetup();
    await s.auth.authenticate(await fresh());
    const next = await s.ks.key('ES256', 'rotated', true);
    s.ks.published.delete('first');
    pass(10_000);
    expect(await reasonOf(s.auth, await fresh(next))).toBe('key');
    expect(s.ks.hits.jwks).toBe(1);
    pass(KEY_COOLDOWN_MS);
    expect((await s.auth.authenticate(await fresh(next))).userId).toBe(s.user('alice'));
    expect(s.ks.hits.jwks).toBe(2);
  });

  it('random-kid flood: 300 tokens with random kids cost at most one key fetch per 30 s cooldown', async () => {
    s = await issuerSetup();
    await s.auth.authenticate(await fresh());
    const flood = async (): Promise<void> => {
      const reasons = await Promise.all(
        Array.from({ length: 150 }, async (_, i) => reasonOf(s.auth, await fresh(s.ks.first, { kid: `rnd-${serial}-${i}` }))),
      );
      expect(new Set(reasons)).toEqual(new Set(['key']));
    };
    await flood();
    await flood();
    expect(s.ks.hits.jwks).toBe(1);
    pass(KEY_COOLDOWN_MS + 1);
    await flood();
    expect(s.ks.hits.jwks).toBe(2);
  });

  it('random-issuer flood: 300 tokens naming random issuers fetch nothing at all', async () => {
    s = await issuerSetup();
    const reasons = await Promise.all(
      Array.from({ length: 300 }, async (_, i) =>
        reasonOf(s.auth, await s.ks.sign(s.ks.first, s.claims({ iss: `https://idp${i}.example` }))),
      ),
    );
    expect(new Set(reasons)).toEqual(new Set(['issuer']));
    expect(s.ks.hits).toEqual({ discovery: 0, jwks: 0, other: 0 });
  });
});

describe('trusted issuer keys: outages', () => {
  it('IdP down after its keys were fetched: they keep verifying for the stale window (1 h), then 503; one attempt per 10 s meanwhile', async () => {
    s = await issuerSetup();
    await s.auth.authenticate(await fresh());
    s.ks.down = true;
    pass(KEYS_MAX_AGE_MS + 1); // the keys are due for a refresh, which fails
    for (let i = 0; i < 20; i++) expect((await s.auth.authenticate(await fresh())).userId).toBe(s.user('alice'));
    expect(s.ks.hits.jwks).toBe(2); // the first fetch, then one failed attempt for all twenty
    pass(RETRY_AFTER_FAILURE_MS + 1);
    await s.auth.authenticate(await fresh());
    expect(s.ks.hits.jwks).toBe(3);
    pass(STALE_KEYS_MS); // past the stale window
    await expectUnavailable(s.auth, await fresh());
    s.ks.down = false;
    pass(RETRY_AFTER_FAILURE_MS + 1);
    expect((await s.auth.authenticate(await fresh())).userId).toBe(s.user('alice'));
  });

  it('cold start with the IdP down: 503 (never an allow), and the failure is remembered for 10 s (no storm)', async () => {
    s = await issuerSetup();
    s.ks.down = true;
    for (let i = 0; i < 20; i++) await expectUnavailable(s.auth, await fresh());
    expect(s.ks.hits.discovery).toBe(2); // RFC 8414, then OIDC, once
    s.ks.down = false;
    pass(RETRY_AFTER_FAILURE_MS + 1);
    expect((await s.auth.authenticate(await fresh())).userId).toBe(s.user('alice'));
  });

  it('an unknown kid while the IdP is down is 503 (nobody can tell), not an allow', async () => {
    s = await issuerSetup();
    await s.auth.authenticate(await fresh());
    s.ks.down = true;
    pass(KEY_COOLDOWN_MS + 1);
    const stranger = await s.ks.key('ES256', 'unseen');
    await expectUnavailable(s.auth, await fresh(stranger));
  });
});

describe('trusted issuer keys: hostile discovery and key sets', () => {
  it('OIDC discovery is used when the RFC 8414 document is missing', async () => {
    s = await issuerSetup();
    s.ks.serve.rfc8414 = false;
    expect((await s.auth.authenticate(await fresh())).userId).toBe(s.user('alice'));
    expect(s.ks.hits.discovery).toBe(2);
  });

  it('mix-up: a discovery document naming another issuer is not used (503)', async () => {
    s = await issuerSetup();
    s.ks.docIssuer = 'https://other-idp.example';
    await expectUnavailable(s.auth, await fresh());
    expect(s.ks.hits.jwks).toBe(0);
  });

  it('with jwksUri given, nothing is discovered', async () => {
    s = await issuerSetup();
    const pinned = await issuerSetup({ issuer: s.ks.issuer, jwksUri: s.ks.jwksUri });
    expect((await pinned.auth.authenticate(await pinned.ks.sign(s.ks.first, s.claims()))).userId).toBe(s.user('alice'));
    expect(s.ks.hits).toEqual({ discovery: 0, jwks: 1, other: 0 });
    await pinned.ks.close();
  });

  it('body bomb: a key set above 128 KiB is refused (503), not read whole', async () => {
    s = await issuerSetup();
    s.ks.pad = 200 * 1024;
    await expectUnavailable(s.auth, await fresh());
  });

  it('a redirect from the key set URL is not followed (503)', async () => {
    s = await issuerSetup();
    const moved = await issuerSetup({ issuer: s.ks.issuer, jwksUri: `${s.ks.origin}/moved` });
    await expectUnavailable(moved.auth, await moved.ks.sign(s.ks.first, s.claims()));
    expect(s.ks.hits.jwks).toBe(0);
    await moved.ks.close();
  });
});
