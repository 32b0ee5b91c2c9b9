/**
 * What `svc` says when it refuses input: the flag the user typed (never an SDK field such as
 * `expiresIn`), the accepted form, and a "did you mean" for the common slips; and what it says
 * when a token in SVC_TOKEN tries to revoke itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/cli';
import { svc, tempHome } from './helpers';

// Names of the SDK's input fields and their issue paths: none may reach a CLI user.
const SDK_FIELDS =
  /\b(expiresIn|expiringWithin|committerIdentity|userId)\b|(^|[\s'"])(scopes|permissions)\[\d|^svc: (name|description|resource):/m;

/** The stderr lines of a run, without the closing "run '… --help' for usage" line. */
function said(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l !== '' && !/^svc: run '.*--help' for usage$/.test(l));
}

describe('svc: refusals name the flag and the accepted form (spawned)', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'owner'])).code).toBe(0);
    expect((await svc(home, ['member', 'set', '-u', 'bob', '-r', 'acme', '--role', 'viewer'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
  });
  afterAll(() => cleanup());

  it('--expires 30 is refused in the flag\'s words, with "did you mean --expires 30d?" (no SDK field, no claim that numbers work)', async () => {
    const r = await svc(home, ['token', 'create', '-n', 'ci', '--expires', '30']);
    expect(r.code).toBe(2);
    expect(said(r.stderr)).toEqual([
      'svc: --expires: expected <N>d, a whole number of days from 1 to 365, e.g. 90d',
      'svc: did you mean --expires 30d?',
    ]);
    expect(r.stderr).not.toMatch(SDK_FIELDS);
    expect(r.stdout).toBe('');
  });

  it('token list --expiring 7 and auth login --expires 30 get the same treatment', async () => {
    const list = await svc(home, ['token', 'list', '--expiring', '7']);
    expect(list.code).toBe(2);
    expect(said(list.stderr)).toEqual([
      'svc: --expiring: expected <N>d, a whole number of days from 1 to 365, e.g. 90d',
      'svc: did you mean --expiring 7d?',
    ]);
    const login = await svc(home, ['auth', 'login', '--user', 'alice', '--expires', '30']);
    expect(login.code).toBe(2);
    expect(said(login.stderr)).toEqual([
      'svc: --expires: expected <N>d, <N>h or <N>m with N a positive whole number',
      'svc: a duration needs its unit: --expires 30d, 30h or 30m',
    ]);
    expect(list.stderr + login.stderr).not.toMatch(SDK_FIELDS);
  });

  it('--scope acme/web:repo:read (a colon for "=") gets "did you mean --scope acme/web=repo:read?"', async () => {
    const r = await svc(home, ['token', 'create', '-n', 'ci', '--scope', 'acme/web:repo:read']);
    expect(r.code).toBe(2);
    const lines = said(r.stderr);
    expect(lines[0]).toMatch(/^svc: --scope\[0\]: unknown permission "acme\/web:repo:read"/);
    expect(lines[1]).toBe('svc: did you mean --scope acme/web=repo:read?');
    expect(r.stderr).not.toMatch(SDK_FIELDS);
  });

  it('--scope acme/web repo:read (a space, unquoted) gets the same hint instead of only "unexpected argument"', async () => {
    const r = await svc(home, ['token', 'create', '-n', 'ci', '--scope', 'acme/web', 'repo:read']);
    expect(r.code).toBe(2);
    expect(said(r.stderr)).toEqual([
      "svc: unexpected argument 'repo:read' (values go after a flag, e.g. --name ci)",
      'svc: did you mean --scope acme/web=repo:read?',
    ]);
  });

  it('every refused field of create is named by its flag; warnings too (--scope[0], --scopes-json[0].…)', async () => {
    const bad = await svc(home, [
      'token',
      'create',
      '-n',
      'bad name',
      '-d',
      'x'.repeat(1100),
      '--committer-identity',
      'nobody',
      '--scopes-json',
      '[{"resource":"acme/web","permissions":["repo:read","repo:read"]}]',
    ]);
    expect(bad.code).toBe(2);
    const lines = said(bad.stderr).map((l) => /^svc: \S+?(?=: )/.exec(l)?.[0]);
    expect(lines).toEqual(['svc: --name', 'svc: --description', 'svc: --committer-identity', 'svc: --scopes-json[0].permissions[1]']);
    expect((await svc(home, ['auth', 'login', '--user', 'bob'])).code).toBe(0);
    const above = await svc(home, ['token', 'create', '-n', 'w', '--scope', 'acme=repo:write', '--json']);
    expect(above.code).toBe(0);
    expect(above.stderr).toMatch(/^svc: warning: --scope\[0\]: acme=repo:write is above your current role/m);
    expect((JSON.parse(above.stdout) as { warnings: string[] }).warnings[0]).toMatch(/^--scope\[0\]: /);
    expect(bad.stderr + above.stderr).not.toMatch(SDK_FIELDS);
  });
});

describe('svc: a PAT in SVC_TOKEN that revokes itself (spawned)', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await svc(home, ['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'owner'])).code).toBe(0);
    expect((await svc(home, ['auth', 'login', '--user', 'alice'])).code).toBe(0);
  });
  afterAll(() => cleanup());

  it("is refused (exit 1) with the library's reason on one line, then a hint that names what to do; the token stays active", async () => {
    const created = await svc(home, ['token', 'create', '-n', 'ci', '--scope', 'acme=repo:read']);
    const token = created.stdout.trim();
    const r = await svc(home, ['token', 'revoke', '--name', 'ci'], { SVC_TOKEN: token });
    expect(r.code).toBe(1);
    const lines = said(r.stderr);
    expect(lines).toHaveLength(2);
    // The first line is the library's own message, printed as is (its wording is the service's).
    expect(lines[0]).toMatch(/^svc: (?!unexpected error|hint:)\S/);
    expect(lines[1]).toBe(
      "svc: hint: 'ci' is the token in SVC_TOKEN: revoke it with your session instead (unset SVC_TOKEN; 'svc auth login --user <id>' if you have none)",
    );
    expect(r.stderr).not.toContain(token);
    const list = JSON.parse((await svc(home, ['token', 'list', '--json'])).stdout) as { name: string; status: string }[];
    expect(list).toEqual([expect.objectContaining({ name: 'ci', status: 'active' })]);
    // A name that is not the credential's own gets no hint.
    const other = await svc(home, ['token', 'revoke', '--name', 'other'], { SVC_TOKEN: token });
    expect(other.code).toBe(1);
    expect(other.stderr).not.toContain('hint');
  });
});

describe('svc token create --scope: a hint for each common slip (in process)', { timeout: 120_000 }, () => {
  let home = '';
  let cleanup = async (): Promise<void> => undefined;
  const run = async (argv: string[]): Promise<{ code: number; stderr: string }> => {
    let stderr = '';
    const code = await runCli(argv, {
      env: { SVC_HOME: home, NO_COLOR: '1' },
      isTTY: false,
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
    });
    return { code, stderr };
  };
  beforeAll(async () => {
    ({ home, cleanup } = await tempHome());
    expect((await run(['member', 'set', '-u', 'alice', '-r', 'acme', '--role', 'owner'])).code).toBe(0);
    expect((await run(['auth', 'login', '--user', 'alice'])).code).toBe(0);
  });
  afterAll(() => cleanup());

  it.each([
    [['acme/web:repo:read'], 'did you mean --scope acme/web=repo:read?'],
    [['acme/web: repo:read,repo:write'], 'did you mean --scope acme/web=repo:read,repo:write?'],
    [['acme/web repo:read'], 'did you mean --scope acme/web=repo:read?'],
    [['acme/web repo:read repo:write'], 'did you mean --scope acme/web=repo:read,repo:write?'],
    [['acme:role:viewer'], 'did you mean --scope acme=role:viewer?'],
    [['acme=editor'], 'did you mean --scope acme=role:editor?'],
    [['acme/web=read'], 'did you mean --scope acme/web=repo:read?'],
    [['acme/web=repo:reed'], 'did you mean --scope acme/web=repo:read?'],
    [['Acme/Web=REPO:READ'], 'did you mean --scope Acme/Web=repo:read?'],
    [['=repo:read'], 'did you mean --scope repo:read?'],
    [['repo:read repo:write'], 'did you mean --scope repo:read,repo:write?'],
    [['repo:reed'], 'did you mean --scope repo:read?'],
    [['acme/web=repo:read,,repo:write'], 'did you mean --scope acme/web=repo:read,repo:write?'],
    [['acme/web'], "a scope names its permissions after '=': e.g. --scope acme/web=repo:read, or --scope acme/web=role:viewer"],
    [['acme/web', 'repo:read'], 'did you mean --scope acme/web=repo:read?'],
    [['acme/web=repo:read', 'repo:write'], 'did you mean --scope acme/web=repo:read,repo:write?'],
    [['repo:read', 'repo:write'], 'did you mean --scope repo:read,repo:write?'],
  ])('--scope %j: %s', async (values, hint) => {
    const r = await run(['token', 'create', '-n', 'x', '--scope', ...values]);
    expect(r.code).toBe(2);
    expect(said(r.stderr)).toContain(`svc: ${hint}`);
    expect(r.stderr).not.toMatch(SDK_FIELDS);
  });

  it.each([
    [['role:owner']], // a role on the global wildcard: the library says why; no guess would be right
    [['acme/web=repo:read,repo:read']],
    [['acme/web=frobnicate']],
    [['acme/web/x=repo:read']],
    [['acme/web=repo:read', 'hello']],
  ])('no hint when no good guess exists: --scope %j', async (values) => {
    const r = await run(['token', 'create', '-n', 'x', '--scope', ...values]);
    expect(r.code).toBe(2);
    expect(said(r.stderr).filter((l) => /did you mean|names its permissions/.test(l))).toEqual([]);
  });

  it('a flood: a --scope value of 100 000 permission-like words gets the library message alone, with no hint', async () => {
    const flood = Array.from({ length: 100_000 }, () => 'repo:reed').join(' ');
    const r = await run(['token', 'create', '-n', 'x', '--scope', `acme/web=${flood}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/did you mean/);
    const split = await run(['token', 'create', '-n', 'x', '--scope', 'acme/web', flood]);
    expect(split.code).toBe(2);
    expect(split.stderr).not.toMatch(/did you mean/);
  });

  it('terminal escapes in a refused --scope value reach neither the message nor the hint raw', async () => {
    const r = await run(['token', 'create', '-n', 'x', '--scope', 'acme/web:repo:read\u001b[2J']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('\u001b');
  });

  it('a valid --scope gets no hint and creates the token', async () => {
    const r = await run(['token', 'create', '-n', 'fine', '--scope', 'acme/web=repo:read', '--scope', 'acme=role:viewer']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/did you mean/);
  });

  it('member and auth refusals name --user and --resource, never userId or resource', async () => {
    const set = await run(['member', 'set', '-u', 'bad id', '-r', 'acme', '--role', 'viewer']);
    expect(set.code).toBe(2);
    expect(said(set.stderr)[0]).toMatch(/^svc: --user: /);
    const res = await run(['member', 'remove', '-u', 'bob', '-r', 'a b']);
    expect(res.code).toBe(2);
    expect(said(res.stderr)[0]).toMatch(/^svc: --resource: /);
    const login = await run(['auth', 'login', '--user', 'bad id']);
    expect(said(login.stderr)[0]).toMatch(/^svc: --user: /);
    const long = await run(['auth', 'login', '--user', 'alice', '--expires', '31d']);
    expect(said(long.stderr)).toEqual(['svc: --expires: at most 30d']);
    expect(set.stderr + res.stderr + login.stderr + long.stderr).not.toMatch(SDK_FIELDS);
  });
});
