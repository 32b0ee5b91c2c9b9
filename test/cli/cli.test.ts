import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_PATTERN } from '../../src/tokens';
import { svc, tempHome } from './helpers';

const DAY = 86_400_000;

describe('svc: the spec flow on a fresh dev instance', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
  });
  afterAll(() => cleanup());

  it('C1: member set/list/remove need no credential and list --json is [{user,resource,role}]', async () => {
    expect((await svc(home, ['member', 'set', '--user', 'alice', '--resource', 'Acme', '--role', 'editor'])).code).toBe(0);
    expect((await svc(home, ['member', 'set', '-u', 'bob', '-r', 'acme/web', '--role', 'role:viewer'])).code).toBe(0);
    expect((await svc(home, ['member', 'set', '-u', 'bob', '-r', 'acme/tmp', '--role', 'viewer'])).code).toBe(0);
    expect((await svc(home, ['member', 'remove', '-u', 'bob', '-r', 'acme/tmp'])).code).toBe(0);
    const missing = await svc(home, ['member', 'remove', '-u', 'bob', '-r', 'acme/tmp']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^svc: /);
    const list = await svc(home, ['member', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      { user: 'alice', resource: 'acme', role: 'editor' },
      { user: 'bob', resource: 'acme/web', role: 'viewer' },
    ]);
    const bad = await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'superuser']);
    expect(bad.code).toBe(2);
  });

  it('C3: state files are 0600 in a 0700 folder, with a generated key ring', async () => {
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    for (const f of ['keys.json', 'members.json']) expect((await stat(join(home, f))).mode & 0o777).toBe(0o600);
  });

  it('C2: without SVC_TOKEN or a session, token commands are refused (exit 1)', async () => {
    const r = await svc(home, ['token', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: not logged in/);
    expect((await svc(home, ['auth', 'status'])).code).toBe(1);
  });

  it('C1: auth login saves a session (0600) and status --json reports it', async () => {
    const r = await svc(home, ['auth', 'login', '--user', 'alice', '--expires', '30d']);
    expect(r.code).toBe(0);
    expect((await stat(join(home, 'session.json'))).mode & 0o777).toBe(0o600);
    const s = await svc(home, ['auth', 'status', '--json']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ user: 'alice', kind: 'session' });
  });

  let ci = '';
  it('C4: create prints the token alone on stdout and a once-only notice on stderr', async () => {
    const r = await svc(home, [
      'token',
      'create',
      '-n',
      'ci',
      '--scope',
      'acme/web=repo:read,repo:write',
      '--scope',
      'acme=role:viewer',
      '-d',
      'CI bot',
    ]);
    expect(r.code).toBe(0);
    ci = r.stdout.trimEnd();
    expect(r.stdout).toBe(`${ci}\n`);
    expect(ci).toMatch(new RegExp(`^${TOKEN_PATTERN.source}$`));
    expect(r.stderr).toMatch(/^svc: .*not be shown again/m);
    expect(r.stderr).not.toContain(ci);
  });

  it('C4: create --json prints {token, ...TokenInfo, warnings} with ISO dates; S5 warnings go to stderr', async () => {
    const scopes = JSON.stringify([
      { resource: 'acme/web', permissions: ['repo:read', 'repo:write'], allowedMatches: ['Doc/*'] },
      { resource: 'acme', permissions: ['repo:read'], allowedMatches: ['Img/*'] },
    ]);
    const r = await svc(home, [
      'token',
      'create',
      '--name',
      'docs',
      '--scopes-json',
      scopes,
      '--expires',
      '7d',
      '--committer-identity',
      'svc:acme/users/Identity/docs-bot',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ name: 'docs', status: 'active', committerIdentity: 'svc:acme/users/Identity/docs-bot', parentId: null });
    expect(typeof out.token).toBe('string');
    expect(out.warnings).toHaveLength(1);
    expect(r.stderr).toMatch(/^svc: warning: --scopes-json\[1\]\.allowedMatches/m);
    expect(Date.parse(out.expiresAt as string) - Date.parse(out.createdAt as string)).toBe(7 * DAY);
    expect(out.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
  });

  it('C1: list, list --json and get --json show status and scopes, never a token value', async () => {
    const table = await svc(home, ['token', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+STATUS\s+EXPIRES\s+LAST USED\s+SCOPES$/m);
    expect(table.stdout).toMatch(/^ci\s+active\s/m);
    expect(table.stdout).not.toMatch(TOKEN_PATTERN);
    const list = JSON.parse((await svc(home, ['token', 'list', '--json'])).stdout) as { name: string; scopes: unknown }[];
    expect(list.map((t) => t.name)).toEqual(['ci', 'docs']);
    expect(list[0]?.scopes).toEqual([
      { resource: 'acme/web', permissions: ['repo:read', 'repo:write'] },
      { resource: 'acme', permissions: ['repo:read', 'org:read'] },
    ]);
    const get = await svc(home, ['token', 'get', '--name', 'ci', '--json']);
    expect(JSON.parse(get.stdout)).toMatchObject({ name: 'ci', description: 'CI bot', status: 'active', revokedAt: null });
    expect(get.stdout).not.toMatch(TOKEN_PATTERN);
  });

  it('C2/M2: with SVC_TOKEN a PAT manages only its subtree and is refused outside it', async () => {
    const child = await svc(home, ['token', 'create', '-n', 'child', '--scope', 'acme/web=repo:read'], { SVC_TOKEN: ci });
    expect(child.code).toBe(0);
    const list = JSON.parse((await svc(home, ['token', 'list', '--json'], { SVC_TOKEN: ci })).stdout) as {
      name: string;
      parentId: string;
    }[];
    expect(list.map((t) => t.name)).toEqual(['child']);
    const outside = await svc(home, ['token', 'revoke', '--name', 'docs'], { SVC_TOKEN: ci });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/^svc: /);
    const wider = await svc(home, ['token', 'create', '-n', 'wide', '--scope', 'acme/web=repo:admin'], { SVC_TOKEN: ci });
    expect(wider.code).toBe(1);
    const status = JSON.parse((await svc(home, ['auth', 'status', '--json'], { SVC_TOKEN: ci })).stdout) as Record<string, unknown>;
    expect(status).toMatchObject({ user: 'alice', kind: 'pat', source: 'SVC_TOKEN', token: 'ci' });
  });

  it('T6: revoke by name revokes the subtree; the revoked token is then refused (exit 1)', async () => {
    const r = await svc(home, ['token', 'revoke', '--name', 'ci']);
    expect(r.code).toBe(0);
    const list = JSON.parse((await svc(home, ['token', 'list', '--json'])).stdout) as { name: string; status: string }[];
    expect(Object.fromEntries(list.map((t) => [t.name, t.status]))).toEqual({ ci: 'revoked', docs: 'active', child: 'revoked' });
    const refused = await svc(home, ['token', 'list'], { SVC_TOKEN: ci });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^svc: SVC_TOKEN was not accepted: it has been revoked/);
    expect(refused.stderr).not.toContain(ci);
  });

  it('T4: tokens past their expiry are listed as expired (test clock) and refused', async () => {
    const later = new Date(Date.now() + 8 * DAY).toISOString();
    const clock = { SVC_ALLOW_TEST_CLOCK: '1', SVC_NOW: later };
    const list = JSON.parse((await svc(home, ['token', 'list', '--json'], clock)).stdout) as { name: string; status: string }[];
    expect(list.find((t) => t.name === 'docs')?.status).toBe('expired');
    const table = await svc(home, ['token', 'list'], clock);
    expect(table.stdout).toMatch(/^docs\s+expired\s/m);
    // SVC_NOW alone does nothing: the test clock needs SVC_ALLOW_TEST_CLOCK=1.
    const ignored = JSON.parse((await svc(home, ['token', 'list', '--json'], { SVC_NOW: later })).stdout) as {
      name: string;
      status: string;
    }[];
    expect(ignored.find((t) => t.name === 'docs')?.status).toBe('active');
  });

  it('C1: logout forgets the session', async () => {
    expect((await svc(home, ['auth', 'logout'])).code).toBe(0);
    expect((await svc(home, ['auth', 'status'])).code).toBe(1);
  });
});

describe('svc: usage and exit codes (C5)', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    await svc(home, ['auth', 'login', '-u', 'carol']);
  });
  afterAll(() => cleanup());

  it('C5: --help and <command> --help exit 0 on stdout; --version prints the package version', async () => {
    const main = await svc(home, ['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toContain('token create');
    const sub = await svc(home, ['token', 'create', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('--scopes-json');
    const v = await svc(home, ['--version']);
    expect(v.stdout).toMatch(/^svc \d+\.\d+\.\d+/);
  });

  it('C5: unknown commands and flags are usage errors (exit 2) with a hint', async () => {
    const cmd = await svc(home, ['tokn', 'list']);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toMatch(/^svc: .*svc token/m);
    const flag = await svc(home, ['token', 'list', '--verbose']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^svc: --verbose/m);
    expect(flag.stderr).toMatch(/svc token list --help/);
    expect((await svc(home, ['token', 'get', 'ci'])).code).toBe(2);
    expect((await svc(home, [])).code).toBe(2);
  });

  it('S4: --scope with --scopes-json in one command is a usage error (exit 2)', async () => {
    const r = await svc(home, ['token', 'create', '-n', 'x', '--scope', 'repo:read', '--scopes-json', '[{"permissions":["repo:read"]}]']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: --scopes-json/m);
  });

  it('C5: invalid input is exit 2: bad name, role on the global wildcard, duplicate pairs, bad expiry, empty scopes', async () => {
    for (const args of [
      ['-n', 'bad name'],
      ['-n', 'x', '--scope', 'role:owner'],
      ['-n', 'x', '--scopes-json', '[{"resource":"a/b","permissions":["repo:read"]},{"resource":"a/b","permissions":["repo:read"]}]'],
      ['-n', 'x', '--expires', '366d'],
      ['-n', 'x', '--scopes-json', '[]'],
      ['-n', 'x', '--scopes-json', '{"__proto__":1}'],
      ['--scope', 'repo:read'],
      ['-n', 'x', '-n', 'y'],
    ]) {
      const r = await svc(home, ['token', 'create', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
  });

  it('C5: refusals are exit 1: an unknown name, a name clash', async () => {
    expect((await svc(home, ['token', 'get', '-n', 'nope'])).code).toBe(1);
    expect((await svc(home, ['token', 'create', '-n', 'dup'])).code).toBe(0);
    expect((await svc(home, ['token', 'create', '-n', 'dup'])).code).toBe(1);
  });
});

describe('svc: several processes at once (C3)', { timeout: 120_000 }, () => {
  it('C3: 12 parallel token create processes on a fresh home lose nothing', async () => {
    const { home, cleanup } = await tempHome();
    try {
      await svc(home, ['auth', 'login', '-u', 'dave']);
      const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => svc(home, ['token', 'create', '-n', `t${i}`])));
      expect(runs.map((r) => r.code)).toEqual(Array(12).fill(0));
      const list = JSON.parse((await svc(home, ['token', 'list', '--json'])).stdout) as { name: string }[];
      expect(list.map((t) => t.name).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `t${i}`).sort());
    } finally {
      await cleanup();
    }
  }, 120_000);

  it('C3: processes starting together on an empty home agree on one key ring', async () => {
    const { home, cleanup } = await tempHome();
    try {
      const logins = await Promise.all(
        ['u1', 'u2', 'u3', 'u4'].map((u) => svc(home, ['member', 'set', '-u', u, '-r', 'acme', '--role', 'viewer'])),
      );
      expect(logins.map((r) => r.code)).toEqual([0, 0, 0, 0]);
      await svc(home, ['auth', 'login', '-u', 'u1']);
      const created = await Promise.all([1, 2, 3].map((i) => svc(home, ['token', 'create', '-n', `k${i}`])));
      // Every token verifies on a later process: all were signed by the one stored ring.
      for (const c of created) expect((await svc(home, ['auth', 'status'], { SVC_TOKEN: c.stdout.trim() })).code).toBe(0);
    } finally {
      await cleanup();
    }
  }, 120_000);
});
