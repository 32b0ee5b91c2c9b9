/**
 * The one command skeleton (defineCommand): every command's --help lists exactly the flags it
 * accepts, and the steps every command shares happen in the same order for all of them (a usage
 * error is refused before the dev instance is opened; --help needs no instance).
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { authCommands, memberCommands, orgCommands, runCli, serveCommand, tokenCommands } from '../../src/app/cli';
import { tempHome } from './helpers';

const ALL = [
  ...tokenCommands.map((c) => ['token', c] as const),
  ...authCommands.map((c) => ['auth', c] as const),
  ...memberCommands.map((c) => ['member', c] as const),
  ...orgCommands.map((c) => ['org', c] as const),
  ...orgCommands.flatMap((c) => c.actions.map((a) => [`org ${c.name}`, a] as const)),
  ['', serveCommand] as const,
];

/** The flags an Options section lists: `-n, --name <name>` gives ['--name', '-n']. */
function listed(help: string): (string | undefined)[][] {
  const options = /^Options:\n((?:[ \t]+.*\n?)+)/m.exec(help)?.[1] ?? '';
  return options.split('\n').flatMap((line) => {
    const m = /^\s+(?:(-[A-Za-z]), )?(--[a-z][a-z-]*)/.exec(line);
    return m === null ? [] : [[m[2], m[1]]];
  });
}

async function run(argv: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { env, isTTY: false, stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

describe('the command skeleton', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(() => Promise.all(cleanups.splice(0).map((c) => c())));

  it('every command accepts exactly the flags its --help lists, with the same short forms', () => {
    for (const [group, command] of ALL) {
      const where = `svc ${[group, command.name].filter((w) => w !== '').join(' ')} --help`;
      const options = listed(command.help);
      expect(options, where).toContainEqual(['--help', '-h']);
      const own = options.filter(([long]) => long !== '--help');
      const declared = Object.entries(command.flags).map(([name, spec]) => [
        `--${name}`,
        spec.short === undefined ? undefined : `-${spec.short}`,
      ]);
      expect(own.sort(), where).toEqual(declared.sort());
    }
  });

  it('--help and usage errors open no instance: SVC_HOME is not even created', async () => {
    const { home, cleanup } = await tempHome();
    cleanups.push(cleanup);
    for (const [group, command] of ALL) {
      const words = [...group.split(' '), command.name].filter((w) => w !== '');
      const help = await run([...words, '--help'], { SVC_HOME: home });
      expect(help).toEqual({ code: 0, out: command.help, err: '' });
    }
    expect(await run(['token', 'create', '--scope', 'acme=repo:read'], { SVC_HOME: home })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^svc: --name: is required$/m),
    });
    expect((await run(['token', 'list', '--expiring', '7'], { SVC_HOME: home })).code).toBe(2);
    expect((await run(['member', 'set', '-u', 'a', '-r', 'acme', '--role', 'boss'], { SVC_HOME: home })).code).toBe(2);
    expect((await run(['auth', 'login', '-u', 'a', '--expires', '30'], { SVC_HOME: home })).code).toBe(2);
    expect((await run(['serve', '--port', 'http'], { SVC_HOME: home })).code).toBe(2);
    expect(existsSync(home)).toBe(false);
  });

  it('required flags are refused in the order the command declares them, one at a time', async () => {
    const { home, cleanup } = await tempHome();
    cleanups.push(cleanup);
    const r = await run(['member', 'set', '--role', 'viewer'], { SVC_HOME: home });
    expect(r.code).toBe(2);
    expect(r.err).toBe("svc: --user: is required\nsvc: run 'svc member set --help' for usage\n");
  });
});
