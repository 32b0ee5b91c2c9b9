/**
 * Issue 20, part 2, on the command line (file store): `svc auth logout` revokes
 * the saved session on the instance and then forgets it, so a copy of it is
 * refused by a running `svc serve` on its next request; `svc auth sessions`
 * lists and ends sessions; a session saved before sessions had records is
 * refused with a way out (log in again).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importKeyRing, mintToken, newTokenId } from '../../src/tokens';
import { exited, serve, svc, tempHome } from './helpers';

interface SessionRow {
  id: string;
  name: string;
  status: string;
  current: boolean;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

async function savedToken(home: string): Promise<string> {
  return (JSON.parse(await readFile(join(home, 'session.json'), 'utf8')) as { token: string }).token;
}

async function sessions(home: string, extra: Record<string, string> = {}): Promise<SessionRow[]> {
  const r = await svc(home, ['auth', 'sessions', '--json'], extra);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as SessionRow[];
}

describe('svc auth logout and svc auth sessions (file store)', { timeout: 180_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'editor'])).code).toBe(0);
  });
  afterAll(() => cleanup());

  it('sessions lists each login (named cli, the current one marked); --revoke ends another one on its next use', async () => {
    expect((await svc(home, ['auth', 'login', '-u', 'alice'])).code).toBe(0);
    const first = await savedToken(home);
    expect((await svc(home, ['auth', 'login', '-u', 'alice'])).code).toBe(0);
    const rows = await sessions(home);
    expect(rows.map((s) => [s.name, s.status, s.current])).toEqual([
      ['cli', 'active', false],
      ['cli', 'active', true],
    ]);
    const table = await svc(home, ['auth', 'sessions']);
    expect(table.stdout).toMatch(/^\s+ID\s+NAME\s+STATUS\s+CREATED\s+EXPIRES\s+LAST USED\s+ABOUT$/m);
    expect(table.stdout).toMatch(new RegExp(`^\\*\\s+${rows[1]?.id}\\s+cli\\s+active\\s`, 'm'));

    const ended = await svc(home, ['auth', 'sessions', `--revoke=${rows[0]?.id as string}`]);
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toContain(`revoked session ${rows[0]?.id}`);
    const refused = await svc(home, ['auth', 'status'], { SVC_TOKEN: first });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc: SVC_TOKEN was not accepted: it has been revoked/);
    expect((await sessions(home)).map((s) => s.status)).toEqual(['revoked', 'active']);
  });

  it('sessions --revoke of an unknown id is refused with a hint (exit 1); an empty one names --revoke (exit 2)', async () => {
    // An id may begin with '-' (base64url): written --revoke=<id>, it is read as the id whatever it begins with.
    const unknown = await svc(home, ['auth', 'sessions', `--revoke=${newTokenId()}`]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('svc: no session with this id among your sessions');
    expect(unknown.stderr).toContain("svc: hint: 'svc auth sessions' lists the ids of your sessions");
    const dashed = await svc(home, ['auth', 'sessions', `--revoke=-${newTokenId().slice(1)}`]);
    expect(dashed.code).toBe(1);
    expect(dashed.stderr).toContain('svc: no session with this id among your sessions');
    // Written apart, such an id reads as a flag: the usage error says how to write it.
    const apart = await svc(home, ['auth', 'sessions', '--revoke', `-${newTokenId().slice(1)}`]);
    expect(apart.code).toBe(2);
    expect(apart.stderr).toContain("a value starting with '-' is written --flag=value");
    const empty = await svc(home, ['auth', 'sessions', '--revoke', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^svc: --revoke: /m);
  });

  it('a PAT in SVC_TOKEN may not see or end sessions (exit 1)', async () => {
    const created = await svc(home, ['token', 'create', '-n', 'script', '--scope', 'acme/web=repo:read']);
    expect(created.code).toBe(0);
    const r = await svc(home, ['auth', 'sessions'], { SVC_TOKEN: created.stdout.trim() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: a personal access token may not see or end sessions/);
  });

  it('logout revokes the saved session on the instance: a running svc serve refuses a copy of it on its next request', async () => {
    const copy = await savedToken(home);
    const s = await serve(home);
    try {
      const whoami = (): Promise<Response> => fetch(`${s.url}/api/whoami`, { headers: { authorization: `Bearer ${copy}` } });
      const before = await whoami();
      expect(before.status).toBe(200);
      expect(await before.json()).toEqual({ kind: 'session', user: 'alice', token: null });

      const out = await svc(home, ['auth', 'logout']);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toBe('logged out: the session was revoked on the instance\n');
      expect(existsSync(join(home, 'session.json'))).toBe(false);

      const after = await whoami();
      expect(after.status).toBe(401);
      expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await after.json()).toMatchObject({ reason: 'revoked' });
    } finally {
      s.child.kill('SIGTERM');
      await exited(s.child);
    }
    const again = await svc(home, ['auth', 'logout']);
    expect(again).toMatchObject({ code: 0, stdout: 'not logged in\n' });
  });

  it('logout of an expired saved session only forgets it (exit 0)', async () => {
    expect((await svc(home, ['auth', 'login', '-u', 'alice', '--expires', '5m'])).code).toBe(0);
    const later = { SVC_ALLOW_TEST_CLOCK: '1', SVC_NOW: new Date(Date.now() + 3_600_000).toISOString() };
    const out = await svc(home, ['auth', 'logout'], later);
    expect(out).toMatchObject({ code: 0, stdout: 'logged out: the saved session was forgotten; it had expired\n' });
    expect(existsSync(join(home, 'session.json'))).toBe(false);
  });

  it('a session saved before sessions had records is refused with "log in again"; logout forgets it (exit 0)', async () => {
    const ring = await importKeyRing(JSON.parse(await readFile(join(home, 'keys.json'), 'utf8')) as Parameters<typeof importKeyRing>[0]);
    const iat = Math.floor(Date.now() / 1000);
    const old = await mintToken(ring, { kind: 'session', iss: 'svc-dev', sub: 'alice', jti: newTokenId(), iat, exp: iat + 3600 });
    await writeFile(join(home, 'session.json'), JSON.stringify({ user: 'alice', token: old }), { mode: 0o600 });
    const refused = await svc(home, ['token', 'list']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "svc: the saved session (svc auth login) was not accepted: it is not known to this instance: run 'svc auth login --user <id>' again\n",
    );
    const out = await svc(home, ['auth', 'logout']);
    expect(out).toMatchObject({ code: 0, stdout: 'logged out: the saved session was forgotten; this instance does not accept it\n' });
  });

  it('logout when the instance cannot be reached keeps the saved session and fails (exit 1): run it again', async () => {
    expect((await svc(home, ['auth', 'login', '-u', 'alice'])).code).toBe(0);
    const r = await svc(home, ['auth', 'logout'], { SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(r.code).toBe(1);
    expect(existsSync(join(home, 'session.json'))).toBe(true);
    expect((await svc(home, ['auth', 'logout'])).stdout).toBe('logged out: the session was revoked on the instance\n');
  });
});
