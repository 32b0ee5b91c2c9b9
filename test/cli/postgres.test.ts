/**
 * Issue 5, end to end: with SVC_DATABASE_URL set, `svc` and `svc serve` keep
 * token records in PostgreSQL, so two servers on different ports share one
 * truth. The CLI always uses the store's default table; this file never drops
 * it, and uses a user and token name unique to the run so a shared table works.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { exited, serve, svc, tempHome } from './helpers';
import { DATABASE_URL, describeWithDb, newPool } from '../support/postgres';

const withDb = describeWithDb('svc with SVC_DATABASE_URL', 'PostgreSQL CLI tests', 'test/cli/postgres.test.ts');

type Served = Awaited<ReturnType<typeof serve>>;

async function stop(s: Served | undefined): Promise<void> {
  if (s === undefined || s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill('SIGTERM');
  await exited(s.child);
}

withDb('svc and svc serve with SVC_DATABASE_URL (PostgreSQL)', { timeout: 120_000 }, () => {
  it('T5: two svc serve processes share one store: a token revoked with the CLI is refused by both on their next request', async () => {
    const { home, cleanup } = await tempHome();
    const other = await tempHome();
    const env = { SVC_DATABASE_URL: DATABASE_URL as string };
    const run = randomBytes(4).toString('hex');
    const user = `pg-${run}`;
    const name = `shared-${run}`;
    let a: Served | undefined;
    let b: Served | undefined;
    try {
      expect((await svc(home, ['member', 'set', '-u', user, '-r', 'acme', '--role', 'viewer'], env)).code).toBe(0);
      expect((await svc(home, ['auth', 'login', '-u', user], env)).code).toBe(0);
      const created = await svc(home, ['token', 'create', '-n', name, '--scope', 'acme/web=repo:read'], env);
      expect(created.code).toBe(0);
      const token = created.stdout.trim();

      // No token or member file: the record and the role went to PostgreSQL.
      expect(existsSync(join(home, 'tokens.json'))).toBe(false);
      expect(existsSync(join(home, 'members.json'))).toBe(false);
      // Server B gets its own SVC_HOME holding only the key ring, so it can know
      // the token, and the user's role, only through the database.
      await mkdir(other.home, { recursive: true, mode: 0o700 });
      await copyFile(join(home, 'keys.json'), join(other.home, 'keys.json'));

      a = await serve(home, env);
      b = await serve(other.home, env);
      expect(a.url).not.toBe(b.url);
      const head = (s: Served): Promise<Response> =>
        fetch(`${s.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${token}` } });

      for (const s of [a, b]) {
        const ok = await head(s);
        expect(ok.status).toBe(200);
        await ok.arrayBuffer();
      }

      expect((await svc(home, ['token', 'revoke', '-n', name], env)).code).toBe(0);

      for (const s of [a, b]) {
        const refused = await head(s);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
        expect(await refused.json()).toMatchObject({ reason: 'revoked' });
      }

      const list = await svc(home, ['token', 'list', '--json'], env);
      expect(list.code).toBe(0);
      const rows = JSON.parse(list.stdout) as { name: string; status: string }[];
      expect(rows.find((t) => t.name === name)?.status).toBe('revoked');
    } finally {
      await Promise.all([stop(a), stop(b)]);
      await cleanup();
      await other.cleanup();
    }
  });

  it('issue 20: svc auth logout revokes the saved session in PostgreSQL: both servers refuse a copy of it on their next request', async () => {
    const { home, cleanup } = await tempHome();
    const other = await tempHome();
    const env = { SVC_DATABASE_URL: DATABASE_URL as string };
    const user = `pgout-${randomBytes(4).toString('hex')}`;
    let a: Served | undefined;
    let b: Served | undefined;
    try {
      expect((await svc(home, ['member', 'set', '-u', user, '-r', 'acme', '--role', 'viewer'], env)).code).toBe(0);
      expect((await svc(home, ['auth', 'login', '-u', user], env)).code).toBe(0);
      const copy = (JSON.parse(await readFile(join(home, 'session.json'), 'utf8')) as { token: string }).token;
      await mkdir(other.home, { recursive: true, mode: 0o700 });
      await copyFile(join(home, 'keys.json'), join(other.home, 'keys.json'));
      a = await serve(home, env);
      b = await serve(other.home, env);
      const whoami = (s: Served): Promise<Response> => fetch(`${s.url}/api/whoami`, { headers: { authorization: `Bearer ${copy}` } });
      for (const s of [a, b]) {
        const ok = await whoami(s);
        expect(ok.status).toBe(200);
        expect(await ok.json()).toEqual({ kind: 'session', user, token: null });
      }
      const out = await svc(home, ['auth', 'logout'], env);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toBe('logged out: the session was revoked on the instance\n');
      for (const s of [a, b]) {
        const refused = await whoami(s);
        expect(refused.status).toBe(401);
        expect(await refused.json()).toMatchObject({ reason: 'revoked' });
      }
      // The record stays, revoked: a new login lists it.
      expect((await svc(home, ['auth', 'login', '-u', user], env)).code).toBe(0);
      const listed = await svc(home, ['auth', 'sessions', '--json'], env);
      expect((JSON.parse(listed.stdout) as { status: string }[]).map((x) => x.status)).toEqual(['revoked', 'active']);
    } finally {
      await Promise.all([stop(a), stop(b)]);
      await cleanup();
      await other.cleanup();
    }
  });

  it('issue 28: svc member set, list and remove work against PostgreSQL; a running server on another SVC_HOME reads the role on the next request', async () => {
    const { home, cleanup } = await tempHome();
    const other = await tempHome();
    const env = { SVC_DATABASE_URL: DATABASE_URL as string };
    const user = `pgmember-${randomBytes(4).toString('hex')}`;
    const mine = (stdout: string): unknown[] => (JSON.parse(stdout) as { user: string }[]).filter((m) => m.user === user);
    let s: Served | undefined;
    try {
      expect((await svc(home, ['member', 'set', '-u', user, '-r', 'Acme', '--role', 'viewer'], env)).code).toBe(0);
      expect((await svc(home, ['member', 'set', '-u', user, '-r', 'acme/secrets', '--role', 'role:editor'], env)).code).toBe(0);
      expect(existsSync(join(home, 'members.json'))).toBe(false);
      // Another home on the same database lists the same memberships: they live in the table, not in SVC_HOME.
      const listed = await svc(other.home, ['member', 'list', '--json'], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(mine(listed.stdout)).toEqual([
        { user, resource: 'acme', role: 'viewer' },
        { user, resource: 'acme/secrets', role: 'editor' },
      ]);
      expect((await svc(home, ['auth', 'login', '-u', user], env)).code).toBe(0);
      const created = await svc(home, ['token', 'create', '-n', 'member-pg', '--scope', 'acme/web=repo:read'], env);
      expect(created.code, created.stderr).toBe(0);
      const token = created.stdout.trim();
      await mkdir(other.home, { recursive: true, mode: 0o700 });
      await copyFile(join(home, 'keys.json'), join(other.home, 'keys.json'));
      s = await serve(other.home, env);
      const served = s;
      const head = async (): Promise<number> => {
        const res = await fetch(`${served.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        return res.status;
      };
      expect(await head()).toBe(200);
      const removed = await svc(home, ['member', 'remove', '-u', user, '-r', 'ACME'], env);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toBe(`removed ${user} from acme\n`);
      // The role is gone from the table: the running server refuses on its next request.
      expect(await head()).toBe(403);
      const again = await svc(home, ['member', 'remove', '-u', user, '-r', 'acme'], env);
      expect(again.code).toBe(1);
      expect(mine((await svc(home, ['member', 'list', '--json'], env)).stdout)).toEqual([
        { user, resource: 'acme/secrets', role: 'editor' },
      ]);
      expect((await svc(home, ['member', 'remove', '-u', user, '-r', 'acme/secrets'], env)).code).toBe(0);
    } finally {
      await stop(s);
      await cleanup();
      await other.cleanup();
    }
  });

  it('a cut database connection does not kill svc serve: pg_terminate_backend of its backends under requests, 503 or correct answers, then recovery', async () => {
    const { home, cleanup } = await tempHome();
    const run = randomBytes(4).toString('hex');
    const app = `svc_cli_cut_${run}`;
    const url = new URL(DATABASE_URL as string);
    url.searchParams.set('application_name', app);
    const env = { SVC_DATABASE_URL: url.toString() };
    const user = `pgcut-${run}`;
    const admin = newPool(`${app}_admin`, { max: 1 });
    let s: Served | undefined;
    try {
      expect((await svc(home, ['member', 'set', '-u', user, '-r', 'acme', '--role', 'viewer'], env)).code).toBe(0);
      expect((await svc(home, ['auth', 'login', '-u', user], env)).code).toBe(0);
      const created = await svc(home, ['token', 'create', '-n', `cut-${run}`, '--scope', 'acme/web=repo:read'], env);
      expect(created.code).toBe(0);
      const token = created.stdout.trim();
      s = await serve(home, env);
      const served = s;
      const head = async (): Promise<number> => {
        const res = await fetch(`${served.url}/api/repos/acme/web/head`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        return res.status;
      };
      expect(await head()).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const requests = Array.from({ length: 8 }, () => head().then((st) => statuses.push(st)));
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [app]);
        await Promise.all(requests);
      }
      for (const st of statuses) expect([200, 503]).toContain(st);
      expect(served.child.exitCode).toBeNull();
      expect(served.child.signalCode).toBeNull();
      // The server reconnects: the next requests succeed.
      let recovered = 0;
      for (let i = 0; i < 5 && recovered !== 200; i++) recovered = await head();
      expect(recovered).toBe(200);
    } finally {
      await stop(s);
      await admin.end();
      await cleanup();
    }
  });
});
