/**
 * Key-bound PATs from the command line, with the real `svc` processes: `svc
 * token create --bind-key` keeps a new Ed25519 private key in SVC_HOME/keys
 * (mode 0600); against `svc serve` the token alone is a 401 invalid_token (as
 * with curl), with the header `svc proof` prints it is a 200; svc commands
 * with a bound SVC_TOKEN sign their own proofs when they find the key, and
 * refuse without it.
 */
import { stat, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair } from 'jose';
import { exited, serve, svc, tempHome } from './helpers';

describe('svc token create --bind-key, svc proof, and bound SVC_TOKEN', { timeout: 180_000 }, () => {
  it('attack: the token alone is refused by svc serve and by svc; with its key (svc proof, the CLI) it works', async () => {
    const { home, cleanup } = await tempHome();
    try {
      await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'editor']);
      await svc(home, ['auth', 'login', '-u', 'alice']);
      const made = await svc(home, ['token', 'create', '-n', 'laptop', '--bind-key', '--scope', 'acme/web=repo:read']);
      expect(made.code).toBe(0);
      const token = made.stdout.trim();
      const keyPath = join(home, 'keys', 'laptop.jwk');
      expect(made.stderr).toContain(keyPath);
      expect((await stat(keyPath)).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(await readFile(keyPath, 'utf8')) as { kty: string; crv: string; d?: string };
      expect(saved).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
      expect(typeof saved.d).toBe('string');
      const info = JSON.parse((await svc(home, ['token', 'get', '-n', 'laptop', '--json'])).stdout) as { boundKey: string | null };
      expect(info.boundKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await svc(home, ['token', 'get', '-n', 'laptop'])).stdout).toContain(`bound key   ${info.boundKey}`);

      const s = await serve(home);
      try {
        const url = `${s.url}/api/repos/acme/web/head`;
        const alone = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        expect(alone.status).toBe(401);
        expect(alone.headers.get('www-authenticate')).toContain('error="invalid_token"');
        expect(await alone.json()).toMatchObject({ reason: 'bound' });

        const proof = await svc(home, ['proof', '--method', 'GET', '--url', url], { SVC_TOKEN: token });
        expect(proof.code).toBe(0);
        const header = /^DPoP: (\S+)\n$/.exec(proof.stdout)?.[1] as string;
        expect(header).toBeDefined();
        const ok = await fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: header } });
        expect(ok.status).toBe(200);
        // The same proof again, or at another URL, is refused.
        expect((await fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: header } })).status).toBe(401);
        const whoami = await fetch(`${s.url}/api/whoami`, { headers: { authorization: `DPoP ${token}`, dpop: header } });
        expect(whoami.status).toBe(401);
      } finally {
        s.child.kill('SIGTERM');
      }
      expect(await exited(s.child)).toEqual({ code: 0, signal: null });

      // svc with the bound SVC_TOKEN signs its own proofs with the key it kept.
      const status = await svc(home, ['auth', 'status'], { SVC_TOKEN: token });
      expect(status.code).toBe(0);
      // A child made with it is bound to the same key, and found by its parent's key file.
      const child = await svc(home, ['token', 'create', '-n', 'child', '--json'], { SVC_TOKEN: token });
      expect(child.code).toBe(0);
      const childInfo = JSON.parse(child.stdout) as { token: string; boundKey: string };
      expect(childInfo.boundKey).toBe(info.boundKey);
      expect((await svc(home, ['auth', 'status'], { SVC_TOKEN: childInfo.token })).code).toBe(0);

      // Another key named by SVC_TOKEN_KEY is refused, and so is the token once its key is gone.
      const other = join(home, 'other.jwk');
      await writeFile(other, JSON.stringify(await exportJWK((await generateKeyPair('EdDSA', { extractable: true })).privateKey)));
      const wrong = await svc(home, ['token', 'list'], { SVC_TOKEN: token, SVC_TOKEN_KEY: other });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('SVC_TOKEN_KEY is not the key the token is bound to');
      await rename(keyPath, join(home, 'moved.jwk'));
      const keyless = await svc(home, ['token', 'list'], { SVC_TOKEN: token });
      expect(keyless.code).toBe(1);
      expect(keyless.stderr).toContain('SVC_TOKEN was not accepted');
      expect(keyless.stderr).toContain('SVC_TOKEN_KEY');
      expect(keyless.stderr).not.toContain(token);
      // Named by SVC_TOKEN_KEY, the moved key works again.
      expect((await svc(home, ['token', 'list'], { SVC_TOKEN: token, SVC_TOKEN_KEY: join(home, 'moved.jwk') })).code).toBe(0);
    } finally {
      await cleanup();
    }
  });

  it('--bind-key <file> takes a public JWK the user holds; a private key file is refused (exit 2) and no token is made', async () => {
    const { home, cleanup } = await tempHome();
    try {
      await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'editor']);
      await svc(home, ['auth', 'login', '-u', 'alice']);
      const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
      const pub = join(home, 'hw.pub.jwk');
      const priv = join(home, 'hw.jwk');
      await writeFile(pub, JSON.stringify(await exportJWK(publicKey)));
      await writeFile(priv, JSON.stringify(await exportJWK(privateKey)));
      const refused = await svc(home, ['token', 'create', '-n', 'hw', '--bind-key', priv]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--bind-key');
      expect(refused.stdout).toBe('');
      const made = await svc(home, ['token', 'create', '--bind-key', pub, '-n', 'hw', '--json']);
      expect(made.code).toBe(0);
      expect((JSON.parse(made.stdout) as { boundKey: string }).boundKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await expect(stat(join(home, 'keys', 'hw.jwk'))).rejects.toThrow();
      // The key is the user's: svc uses it when SVC_TOKEN_KEY names its private half.
      const token = (JSON.parse(made.stdout) as { token: string }).token;
      expect((await svc(home, ['auth', 'status'], { SVC_TOKEN: token })).code).toBe(1);
      expect((await svc(home, ['auth', 'status'], { SVC_TOKEN: token, SVC_TOKEN_KEY: priv })).code).toBe(0);
    } finally {
      await cleanup();
    }
  });
});
