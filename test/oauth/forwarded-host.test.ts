/**
 * Host header injection: every URL the server writes (metadata endpoints, the
 * device pages' form actions, redirects) comes from the configured issuer,
 * never from `Host` or, behind a proxy, `X-Forwarded-Host`. And a web client
 * may not register a plain-http redirect URI on a public host.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIRECT, startServer, type Running } from '../support/oauth';
import { startDevServer, type DevServer } from '../support/dev-server';

/** GET `path` on `base` with the given headers (node:http: fetch does not let a caller set Host). */
function get(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const EVIL = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example' };

describe('URLs come from the issuer, not from Host or X-Forwarded-Host', () => {
  for (const trustProxy of [false, true]) {
    describe(`trustProxy: ${trustProxy}`, () => {
      let s: Running;
      beforeAll(async () => {
        s = await startServer({ trustProxy });
      });
      afterAll(() => s.close());

      it('the metadata names the issuer for every endpoint', async () => {
        for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
          const res = await get(s.base, path, EVIL);
          expect(res.status).toBe(200);
          expect(res.body).not.toContain('evil.example');
          const doc = JSON.parse(res.body) as Record<string, unknown>;
          expect(doc).toMatchObject({ issuer: s.base, token_endpoint: `${s.base}/oauth/token`, jwks_uri: `${s.base}/oauth/jwks` });
        }
      });

      it('the device page posts its form to the issuer', async () => {
        const res = await get(s.base, '/oauth/device', EVIL);
        expect(res.status).toBe(200);
        expect(res.body).not.toContain('evil.example');
        expect(res.body).toContain(`action="${s.base}/oauth/device"`);
      });
    });
  }
});

describe('redirect URIs of registered clients: https, loopback http, or a native scheme', () => {
  let s: Running;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  const registerWith = async (
    redirect: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ status: number; error: string | undefined }> => {
    const res = await fetch(`${s.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirect], ...extra }),
    });
    return { status: res.status, error: ((await res.json()) as { error?: string }).error };
  };

  it('code interception on the wire: a plain-http redirect URI on a public host is refused', async () => {
    expect(await registerWith('http://evil.example/callback')).toEqual({ status: 400, error: 'invalid_redirect_uri' });
    expect(await registerWith('http://app.example/cb', { application_type: 'native' })).toMatchObject({ status: 400 });
  });

  it('https, http on loopback and a native app’s own scheme are accepted', async () => {
    for (const uri of ['https://app.example/callback', REDIRECT, 'http://localhost:3000/cb', 'http://[::1]:3000/cb']) {
      expect(await registerWith(uri)).toMatchObject({ status: 201 });
    }
    expect(await registerWith('com.example.app:/callback', { application_type: 'native' })).toMatchObject({ status: 201 });
  });
});

describe('DNS rebinding on svc serve: its authorization server answers under its own names only', () => {
  let dev: DevServer;
  let base: string;
  beforeAll(async () => {
    dev = await startDevServer([]);
    ({ base } = dev);
  });
  afterAll(() => dev.close());

  it('a foreign Host is refused; localhost on the same port is the same server', async () => {
    const port = new URL(base).port;
    const refused = await get(base, '/.well-known/oauth-authorization-server', { host: `evil.example:${port}` });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain(base);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const ok = await get(base, '/.well-known/oauth-authorization-server', { host });
      expect(ok.status).toBe(200);
      expect(JSON.parse(ok.body)).toMatchObject({ issuer: base, token_endpoint: `${base}/oauth/token` });
    }
  });
});
