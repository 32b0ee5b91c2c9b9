/**
 * `svc serve --trust-issuer <url> --audience <aud>` (repeatable, paired in order):
 * the real process accepts an identity provider's access tokens as sessions, and
 * a bad pairing or URL is a usage error (exit 2) named by the flag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userIdPrefixOf } from '../support/issuer-user-id';
import { startKeyServer, type KeyServer, type SigningKey } from '../support/key-server';
import { exited, serve, svc, tempHome } from './helpers';

let ks: KeyServer & { first: SigningKey };
beforeAll(async () => {
  ks = await startKeyServer();
});
afterAll(async () => {
  await ks.close();
});

describe('svc serve --trust-issuer', { timeout: 120_000 }, () => {
  it('accepts the trusted IdP token as a session of its user (issuer and sub), capped by svc member roles; another audience is 401', async () => {
    const { home, cleanup } = await tempHome();
    // T10: the user id is derived from the issuer and the sub, the id the member roles are set under.
    const erin = `${userIdPrefixOf(ks.issuer)}erin`;
    try {
      await svc(home, ['member', 'set', '-u', erin, '-r', 'acme', '--role', 'viewer']);
      const s = await serve(home, {}, [
        '--trust-issuer',
        'https://unused.example',
        '--audience',
        'x',
        '--trust-issuer',
        ks.issuer,
        '--audience',
        'svc-dev',
      ]);
      try {
        const now = Math.floor(Date.now() / 1000);
        const claims = { iss: ks.issuer, sub: 'erin', iat: now, exp: now + 300 };
        const token = await ks.sign(ks.first, { ...claims, aud: 'svc-dev' });
        const who = await fetch(`${s.url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } });
        expect(who.status).toBe(200);
        expect(await who.json()).toMatchObject({ kind: 'session', user: erin });
        const head = await fetch(`${s.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${token}` } });
        expect(head.status).toBe(200);
        const other = await ks.sign(ks.first, { ...claims, aud: 'https://billing.example' });
        const refused = await fetch(`${s.url}/api/whoami`, { headers: { authorization: `Bearer ${other}` } });
        expect(refused.status).toBe(401);
        expect(await refused.json()).toMatchObject({ reason: 'audience' });
        expect(s.stderr()).not.toContain(token);
      } finally {
        s.child.kill('SIGTERM');
      }
      expect(await exited(s.child)).toEqual({ code: 0, signal: null });
    } finally {
      await cleanup();
    }
  });

  it('C5: unpaired flags and a plain-http remote issuer are usage errors (exit 2), named by the flag', async () => {
    const { home, cleanup } = await tempHome();
    try {
      const unpaired = await svc(home, ['serve', '--trust-issuer', 'https://idp.example']);
      expect(unpaired.code).toBe(2);
      expect(unpaired.stderr).toContain('svc: --audience: give one --audience per --trust-issuer');
      const plain = await svc(home, ['serve', '--trust-issuer', 'http://idp.example', '--audience', 'api']);
      expect(plain.code).toBe(2);
      expect(plain.stderr).toContain('svc: --trust-issuer[0]: must use https');
    } finally {
      await cleanup();
    }
  });
});
