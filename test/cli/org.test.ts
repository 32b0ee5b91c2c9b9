/**
 * Issue 30 through the CLI on the dev instance (the file store): an org owner
 * sets a policy with `svc org policy set`; a member's token against it is
 * refused at creation with the fix printed; approval with `svc org requests`;
 * the inventory and an org revocation with `svc org tokens`; a member without
 * org:admin is refused; and `svc serve` refuses a token in that org only, from
 * the request after the CLI changed the policy.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/cli';
import { exited, serve, tempHome } from './helpers';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `svc` in process (the real program, without a node start per call): the machine is shared. */
async function svc(home: string, argv: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const env = { SVC_HOME: home, NO_COLOR: '1' };
  const code = await runCli(argv, { env, isTTY: false, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

interface Req {
  id: string;
  tokenName: string;
  ownerId: string;
  justification: string | null;
  status: string;
}

interface OrgToken {
  id: string;
  name: string;
  ownerId: string;
  access: string;
  reason: string | null;
}

function parsed<T>(run: Run): T {
  expect(run.stderr, 'stderr of a --json run').toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

describe('svc org', { timeout: 240_000 }, () => {
  it('an owner governs acme: a 90-day policy, approval, the inventory, an org revocation; a viewer may do none of it', async () => {
    const { home, cleanup } = await tempHome();
    const as = async (user: string): Promise<void> => {
      expect((await svc(home, ['auth', 'login', '--user', user])).code).toBe(0);
    };
    try {
      for (const [user, org, role] of [
        ['olive', 'acme', 'owner'],
        ['bob', 'acme', 'editor'],
        ['bob', 'globex', 'editor'],
        ['carol', 'acme', 'viewer'],
      ] as const) {
        expect((await svc(home, ['member', 'set', '--user', user, '--resource', org, '--role', role])).code).toBe(0);
      }
      await as('bob');
      const old = await svc(home, ['token', 'create', '-n', 'old', '--scope', 'acme/web=repo:read', '--expires', '365d', '--json']);
      const oldId = (JSON.parse(old.stdout) as { id: string }).id;

      await as('olive');
      const set = await svc(home, ['org', 'policy', 'set', 'Acme', '--max-lifetime', '90d', '--require-approval']);
      expect(set.code).toBe(0);
      expect(set.stdout).toMatch(/^max lifetime {2}90d$/m);
      const policy = parsed<Record<string, unknown>>(await svc(home, ['org', 'policy', 'get', 'acme', '--json']));
      expect(policy).toMatchObject({ org: 'acme', maxLifetime: '90d', requireApproval: true, allowGlobal: true, updatedBy: 'olive' });
      expect(policy.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      await as('bob');
      const long = await svc(home, ['token', 'create', '-n', 'long', '--scope', 'acme=repo:read', '--expires', '365d']);
      expect(long.code).toBe(2);
      expect(long.stdout).toBe('');
      expect(long.stderr).toContain("The organization 'acme' allows tokens that live at most 90 days");
      expect(long.stderr).toContain('--expires 90d or less');
      const ci = await svc(home, ['token', 'create', '-n', 'ci', '--scope', 'acme/web=repo:read', '--justification', 'CI of the web team']);
      expect(ci.code).toBe(0);
      expect(ci.stderr).toMatch(/^svc: notice: 'acme' requires an owner's approval/m);
      const pending = parsed<{ orgAccess: { org: string; status: string }[] }>(await svc(home, ['token', 'get', '-n', 'ci', '--json']));
      expect(pending.orgAccess).toEqual([expect.objectContaining({ org: 'acme', status: 'pending' })]);

      await as('carol');
      for (const args of [
        ['org', 'policy', 'get', 'acme'],
        ['org', 'policy', 'set', 'acme', '--no-require-approval'],
        ['org', 'requests', 'list', 'acme'],
        ['org', 'tokens', 'list', 'acme'],
        ['org', 'tokens', 'revoke', 'acme', oldId],
      ]) {
        const refused = await svc(home, args);
        expect(refused, args.join(' ')).toMatchObject({ code: 1, stdout: '' });
        expect(refused.stderr, args.join(' ')).toMatch(/^svc: .*org:admin on 'acme'/m);
      }

      await as('olive');
      const [request, ...others] = parsed<Req[]>(await svc(home, ['org', 'requests', 'list', 'acme', '--json']));
      expect(others).toEqual([]);
      expect(request).toMatchObject({ tokenName: 'ci', ownerId: 'bob', justification: 'CI of the web team', status: 'pending' });
      const approved = await svc(home, ['org', 'requests', 'approve', 'acme', '--reason', 'ok for CI', '--', request?.id ?? '']);
      expect(approved).toMatchObject({ code: 0, stdout: `approved ${request?.id} (ci of bob)\n` });
      const unknown = await svc(home, ['org', 'requests', 'deny', 'acme', 'no-such-id']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("svc: hint: 'svc org requests list acme' lists the request ids");

      const inventory = parsed<OrgToken[]>(await svc(home, ['org', 'tokens', 'list', 'acme', '--owner', 'bob', '--json']));
      expect(inventory.map((t) => [t.name, t.access]).sort()).toEqual([
        ['ci', 'approved'],
        ['old', 'pending'],
      ]);
      const table = await svc(home, ['org', 'tokens', 'list', 'acme', '--access', 'approved']);
      expect(table.stdout).toMatch(/^ID +NAME +OWNER +STATUS +ACCESS/);
      expect(table.stdout).toMatch(/ ci +bob +active +approved /);
      expect(table.stdout).not.toMatch(/ old /);
      const revoked = await svc(home, ['org', 'tokens', 'revoke', 'acme', '--reason', 'older than the policy', '--', oldId]);
      expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${oldId} (old of bob) in acme\n` });

      await as('bob');
      const shown = await svc(home, ['token', 'get', '-n', 'ci']);
      expect(shown.stdout).toMatch(/^org access {2}acme {2}approved by olive \S+: ok for CI$/m);
      const oldShown = await svc(home, ['token', 'get', '-n', 'old']);
      expect(oldShown.stdout).toMatch(/^org access {2}acme {2}revoked by olive \S+: older than the policy$/m);
      expect(oldShown.stdout).toMatch(/^status {6}active$/m);
    } finally {
      await cleanup();
    }
  });

  it('usage errors exit 2 before the instance is opened', async () => {
    const { home, cleanup } = await tempHome();
    try {
      const cases: [string[], RegExp][] = [
        [['org', 'policy'], /needs an action: get, set/],
        [['org', 'policy', 'gte', 'acme'], /did you mean 'get'/],
        [['org', 'policy', 'get'], /give the org right after the action/],
        [['org', 'policy', 'get', 'acme/web'], /'acme\/web' is a repo/],
        [['org', 'policy', 'set', 'acme'], /nothing to change/],
        [['org', 'policy', 'set', 'acme', '--allow-global', '--no-global'], /--no-global: cannot be used together with --allow-global/],
        [['org', 'requests', 'approve', 'acme'], /give at least one id/],
        [['org', 'requests', 'list', 'acme', '--status', 'maybe'], /--status: must be one of pending, approved, denied, revoked/],
        [['org', 'tokens', 'list', 'acme', '--last-used-before', 'yesterday'], /--last-used-before: must be a date/],
        [['org', 'tokens', 'list', 'acme', 'extra'], /unexpected argument 'extra'/],
      ];
      for (const [args, message] of cases) {
        const run = await svc(home, args);
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr, args.join(' ')).toMatch(message);
      }
      expect(existsSync(home)).toBe(false);
      const help = await svc(home, ['org', 'tokens', 'revoke', '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: svc org tokens revoke <org> <id>\.\.\./);
    } finally {
      await cleanup();
    }
  });

  it('svc serve: a policy set with the CLI while it runs refuses the token in that org on its next request (403, reason policy), not in another', async () => {
    const { home, cleanup } = await tempHome();
    try {
      await svc(home, ['member', 'set', '-u', 'olive', '-r', 'acme', '--role', 'owner']);
      await svc(home, ['member', 'set', '-u', 'bob', '-r', 'acme', '--role', 'editor']);
      await svc(home, ['member', 'set', '-u', 'bob', '-r', 'globex', '--role', 'editor']);
      await svc(home, ['auth', 'login', '-u', 'bob']);
      const created = await svc(home, [
        'token',
        'create',
        '-n',
        'both',
        '--scope',
        'acme/web=repo:read',
        '--scope',
        'globex/app=repo:read',
        '--expires',
        '365d',
      ]);
      const token = created.stdout.trim();
      const s = await serve(home);
      try {
        const head = (repo: string): Promise<Response> =>
          fetch(`${s.url}/api/repos/${repo}/head`, { headers: { authorization: `Bearer ${token}` } });
        expect((await head('acme/web')).status).toBe(200);
        await svc(home, ['auth', 'login', '-u', 'olive']);
        expect((await svc(home, ['org', 'policy', 'set', 'acme', '--max-lifetime', '90d'])).code).toBe(0);
        const refused = await head('acme/web');
        expect(refused.status).toBe(403);
        const body = (await refused.json()) as { reason: string; message: string };
        expect(body).toMatchObject({ error: 'forbidden', reason: 'policy' });
        expect(body.message).toContain("The organization 'acme' allows tokens that live at most 90 days; this one lives 365 days.");
        expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
        expect((await head('globex/app')).status).toBe(200);
        expect((await svc(home, ['org', 'policy', 'set', 'acme', '--max-lifetime', 'none'])).code).toBe(0);
        expect((await head('acme/web')).status).toBe(200);
        expect(s.stderr()).not.toContain(token);
      } finally {
        s.child.kill('SIGTERM');
      }
      expect(await exited(s.child)).toEqual({ code: 0, signal: null });
    } finally {
      await cleanup();
    }
  });
});
