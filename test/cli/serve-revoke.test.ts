/**
 * `svc serve` mounts the credential revocation endpoint: a PAT leaked
 * somewhere is posted to `POST /api/credentials/revoke` by someone with no
 * credential of their own, and the running server (and the CLI, on the same
 * SVC_HOME) refuses it from then on. The access log says `reason=revoke`,
 * never the token.
 */
import { describe, expect, it } from 'vitest';
import { createDevServer, openInstance } from '../../src/app/dev';
import { exited, serve, svc, tempHome } from './helpers';

describe('svc serve: POST /api/credentials/revoke', { timeout: 120_000 }, () => {
  it('the real process revokes a leaked PAT sent by anyone; the server and the CLI refuse it from then on', async () => {
    const { home, cleanup } = await tempHome();
    try {
      await svc(home, ['member', 'set', '-u', 'erin', '-r', 'acme', '--role', 'viewer']);
      await svc(home, ['auth', 'login', '-u', 'erin']);
      const token = (await svc(home, ['token', 'create', '-n', 'leaky', '--scope', 'acme/web=repo:read'])).stdout.trim();
      const s = await serve(home);
      try {
        const head = (): Promise<Response> => fetch(`${s.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${token}` } });
        expect((await head()).status).toBe(200);
        const res = await fetch(`${s.url}/api/credentials/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ credentials: [token, 'not-a-token'] }),
        });
        expect(res.status).toBe(202);
        expect(await res.json()).toEqual({ status: 'accepted' });
        const refused = await head();
        expect(refused.status).toBe(401);
        expect(await refused.json()).toMatchObject({ reason: 'revoked' });
        const list = await svc(home, ['token', 'list', '--json']);
        expect((JSON.parse(list.stdout) as { name: string; status: string }[]).find((t) => t.name === 'leaky')?.status).toBe('revoked');
        for (let i = 0; i < 50 && !/ 401 /.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
        expect(s.stderr()).toMatch(/^POST \/api\/credentials\/revoke 202 user=- token=- reason=revoke$/m);
        expect(s.stderr()).not.toContain(token);
      } finally {
        s.child.kill('SIGTERM');
      }
      expect(await exited(s.child)).toEqual({ code: 0, signal: null });
    } finally {
      await cleanup();
    }
  });

  it("a caller's own route cannot shadow the endpoint; GET there is 405", async () => {
    const { home, cleanup } = await tempHome();
    const dev = await openInstance({ SVC_HOME: home });
    const server = await createDevServer({
      instance: dev,
      routes: { '/api/credentials/revoke': () => Promise.reject(new Error('shadowed')) },
    });
    try {
      const url = await server.listen({ port: 0 });
      const ok = await fetch(`${url}/api/credentials/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"credentials":[]}',
      });
      expect(ok.status).toBe(202);
      const get = await fetch(`${url}/api/credentials/revoke`);
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
    } finally {
      await server.close();
      await dev.close();
      await cleanup();
    }
  });
});
