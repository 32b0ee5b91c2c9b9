import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, serve, svc, tempHome } from './helpers';

describe('svc serve: a refused request is logged with the token id, never the token value', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
  });
  afterAll(() => cleanup());

  it('a revoked PAT still in use is traced by its id in the log line', async () => {
    expect((await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'owner'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
    const token = (await svc(home, ['token', 'create', '-n', 'ci', '--scope', 'acme/web=repo:read'])).stdout.trim();
    const id = (JSON.parse((await svc(home, ['token', 'get', '-n', 'ci', '--json'])).stdout) as { id: string }).id;
    expect((await svc(home, ['token', 'revoke', '-n', 'ci'])).code).toBe(0);
    const s = await serve(home);
    try {
      const res = await fetch(`${s.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      await res.text();
    } finally {
      s.child.kill('SIGTERM');
      await exited(s.child);
    }
    const line = s
      .stderr()
      .split('\n')
      .find((l) => l.includes(' 401 '));
    expect(line).toContain(`token=id:${id}`);
    expect(line).toContain('reason=revoked');
    expect(s.stderr()).not.toContain(token);
    expect(s.stderr()).not.toContain(token.split('.')[2] as string);
  });
});
