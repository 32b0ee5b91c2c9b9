/**
 * Service accounts through the CLI on the dev instance (the file store): an owner creates an
 * account, gives it a token with `svc token create --service-account`, lists and lowers it, registers
 * and revokes an OAuth client; the token works as the account and stops when it is disabled; a
 * member without org:admin is refused.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/cli';
import { tempHome } from './helpers';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function svc(home: string, argv: string[], extra: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const env = { SVC_HOME: home, NO_COLOR: '1', ...extra };
  const code = await runCli(argv, { env, isTTY: false, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

describe('svc org service-accounts', { timeout: 240_000 }, () => {
  it('an owner makes ci-bot, its token, its client; lowering and disabling hold on the next use; a member is refused', async () => {
    const { home, cleanup } = await tempHome();
    try {
      expect((await svc(home, ['member', 'set', '--user', 'olive', '--resource', 'acme', '--role', 'owner'])).code).toBe(0);
      expect((await svc(home, ['member', 'set', '--user', 'bob', '--resource', 'acme', '--role', 'editor'])).code).toBe(0);
      expect((await svc(home, ['auth', 'login', '--user', 'olive'])).code).toBe(0);

      const made = await svc(home, ['org', 'service-accounts', 'create', 'acme', 'ci-bot', '--role', 'editor', '--description', 'deploys']);
      expect(made).toMatchObject({ code: 0, stdout: 'created sa:acme/ci-bot (editor)\n' });
      const bad = await svc(home, ['org', 'service-accounts', 'create', 'acme', 'CI Bot', '--role', 'god']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--role');

      const created = await svc(home, [
        'token',
        'create',
        '-n',
        'deploy',
        '--scope',
        'acme/web=repo:write',
        '--service-account',
        'acme/ci-bot',
      ]);
      expect(created.code).toBe(0);
      const token = created.stdout.trim();
      const listed = await svc(home, ['token', 'list', '--service-account', 'acme/ci-bot', '--json']);
      expect((JSON.parse(listed.stdout) as { name: string }[]).map((t) => t.name)).toEqual(['deploy']);

      // The account's token, used as SVC_TOKEN, authenticates as the account: it manages its own subtree.
      const asBot = await svc(home, ['auth', 'status'], { SVC_TOKEN: token });
      expect(asBot.code).toBe(0);
      expect(asBot.stdout + asBot.stderr).toContain('sa:acme/ci-bot');

      const list = await svc(home, ['org', 'service-accounts', 'list', 'acme', '--json']);
      expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id: 'sa:acme/ci-bot', role: 'editor', disabled: false })]);
      expect((await svc(home, ['org', 'service-accounts', 'update', 'acme', 'ci-bot', '--role', 'viewer'])).code).toBe(0);
      expect(JSON.parse((await svc(home, ['org', 'service-accounts', 'get', 'acme', 'ci-bot', '--json'])).stdout)).toMatchObject({
        role: 'viewer',
      });

      const client = await svc(home, ['org', 'service-accounts', 'clients', 'create', 'acme', 'ci-bot', '--secret']);
      expect(client.code).toBe(0);
      const [clientId, secret] = client.stdout.trim().split('\n');
      expect(clientId).toMatch(/^sa~acme~ci-bot~/);
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const clients = await svc(home, ['org', 'service-accounts', 'clients', 'list', 'acme', 'ci-bot']);
      expect(clients.stdout).toContain(clientId as string);
      expect(clients.stdout).not.toContain(secret as string);
      expect(
        (await svc(home, ['org', 'service-accounts', 'clients', 'revoke', 'acme', 'ci-bot', '--client', clientId as string])).code,
      ).toBe(0);

      expect((await svc(home, ['org', 'service-accounts', 'update', 'acme', 'ci-bot', '--disable'])).code).toBe(0);
      const refused = await svc(home, ['auth', 'status'], { SVC_TOKEN: token });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('SVC_TOKEN was not accepted');

      expect((await svc(home, ['auth', 'login', '--user', 'bob'])).code).toBe(0);
      const member = await svc(home, ['org', 'service-accounts', 'list', 'acme']);
      expect(member.code).not.toBe(0);
      expect(member.stderr).toContain('org:admin');
    } finally {
      await cleanup();
    }
  });
});
