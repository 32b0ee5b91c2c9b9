/**
 * docs/cli.md agrees with `svc` itself: its reference part is every command's `--help` verbatim
 * (written by scripts/cli-docs.mjs), its synopsis lists every command and flag, and nothing on
 * the page names a flag that does not exist.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/app/cli';
import { ROOT, svc, tempHome } from './helpers';

const FIX = 'run `node scripts/cli-docs.mjs` to rewrite the reference part of docs/cli.md';
const GLOBAL_FLAGS = ['--help', '-h', '--version', '-V'];

async function helpOf(args: readonly string[]): Promise<string> {
  let out = '';
  const code = await runCli([...args, '--help'], {
    env: { NO_COLOR: '1' },
    isTTY: false,
    stdout: (t) => (out += t),
    stderr: () => undefined,
  });
  expect(code, `svc ${args.join(' ')} --help`).toBe(0);
  return out;
}

/** The flags an Options section lists, long and short: `-n, --name <name>` gives -n and --name. */
function flagsOf(help: string): string[] {
  const options = /^Options:\n((?:[ \t]+.*\n?)+)/m.exec(help)?.[1] ?? '';
  return options.split('\n').flatMap((line) => {
    const m = /^\s+(?:(-[A-Za-z]), )?(--[a-z][a-z-]*)/.exec(line);
    return m === null ? [] : [m[2] ?? '', ...(m[1] === undefined ? [] : [m[1]])];
  });
}

/**
 * `svc token create -n ci --scope x` → the flags written after each command name on a line of docs
 * (up to the next command or backtick). In a synopsis, an indented line goes on with the command above it.
 */
function invocations(text: string, commands: readonly string[], synopsis = false): { command: string; flags: string[]; line: string }[] {
  const names = [...commands].sort((a, b) => b.length - a.length).map((c) => c.replaceAll(' ', ' +'));
  const at = new RegExp(`\\bsvc +(${names.join('|')})\\b`, 'g');
  const out: { command: string; flags: string[]; line: string }[] = [];
  for (const line of text.split('\n')) {
    const found = [...line.matchAll(at)];
    const last = out.at(-1);
    if (synopsis && found.length === 0 && /^\s/.test(line) && last !== undefined) {
      last.flags.push(...[...line.matchAll(/(?:^|[\s[(|])(--?[A-Za-z][A-Za-z-]*)/g)].map((f) => f[1] ?? ''));
      continue;
    }
    found.forEach((m, k) => {
      const start = (m.index ?? 0) + m[0].length;
      const end = Math.min(found[k + 1]?.index ?? line.length, ...[line.indexOf('`', start)].filter((i) => i >= 0));
      const rest = line.slice(start, end);
      const flags = [...rest.matchAll(/(?:^|[\s[(|])(--?[A-Za-z][A-Za-z-]*)/g)].map((f) => f[1] ?? '');
      out.push({ command: (m[1] ?? '').replace(/ +/g, ' '), flags, line });
    });
  }
  return out;
}

describe('docs/cli.md agrees with every --help', { timeout: 120_000 }, () => {
  const page = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
  const HEADING = "\n## Reference: every command's `--help`\n";
  const cut = page.indexOf(HEADING);
  const handWritten = cut < 0 ? page : page.slice(0, cut);
  let main = '';
  let commands: string[] = [];
  const helps = new Map<string, string>();
  const flags = new Map<string, string[]>();

  beforeAll(async () => {
    main = await helpOf([]);
    const block = /^Commands:\n((?: {2}\S.*\n)+)/m.exec(main)?.[1] ?? '';
    commands = block.split('\n').flatMap((l) => /^ {2}([a-z][a-z-]*(?: [a-z][a-z-]*){0,3})(?= {2})/.exec(l)?.[1] ?? []);
    for (const c of commands) {
      const text = await helpOf(c.split(' '));
      helps.set(c, text);
      flags.set(c, flagsOf(text));
    }
  });

  it('the command list is what svc --help says, and the real program prints the same help', async () => {
    expect(commands).toEqual(expect.arrayContaining(['token create', 'token list', 'auth login', 'member set', 'serve']));
    expect(flags.get('token list')).toEqual(expect.arrayContaining(['--expiring', '--json']));
    const { home, cleanup } = await tempHome();
    try {
      const spawned = await svc(home, ['--help']);
      expect(spawned.stdout).toBe(main);
      expect((await svc(home, ['token', 'create', '--help'])).stdout).toBe(helps.get('token create'));
    } finally {
      await cleanup();
    }
  });

  it('the reference part holds `svc --help` and every command --help, verbatim and in order', () => {
    expect(page.includes(HEADING), FIX).toBe(true);
    const reference = page.slice(page.indexOf(HEADING));
    const sections = [...reference.matchAll(/^### `(svc[^`]*)`\n\n```text\n([\s\S]*?)\n```$/gm)].map((m) => [m[1], m[2]]);
    const expected = [['svc', main], ...commands.map((c) => [`svc ${c}`, helps.get(c) ?? ''])].map(([t, h]) => [t, (h ?? '').trimEnd()]);
    expect(sections, FIX).toEqual(expected);
  });

  it('the synopsis lists every command with every one of its flags', () => {
    const synopsis = /^## The `svc` program\n+```\n([\s\S]*?)\n```/m.exec(handWritten)?.[1];
    expect(synopsis).toBeDefined();
    const listed = invocations(synopsis ?? '', commands, true);
    for (const c of commands) {
      const shown = listed.filter((i) => i.command === c).flatMap((i) => i.flags);
      expect(shown.length + listed.filter((i) => i.command === c).length, `synopsis lacks svc ${c}`).toBeGreaterThan(0);
      // A flag counts as listed in its long or its short form.
      const own = helps.get(c) ?? '';
      for (const f of (flags.get(c) ?? []).filter((x) => x.startsWith('--') && x !== '--help')) {
        const short = new RegExp(`(-[A-Za-z]), ${f}\\b`).exec(own)?.[1];
        expect(shown.includes(f) || (short !== undefined && shown.includes(short)), `synopsis of svc ${c} lacks ${f}`).toBe(true);
      }
    }
  });

  it('every svc command written on the page uses only flags it has', () => {
    const uses = invocations(handWritten, commands);
    expect(uses.length).toBeGreaterThan(10);
    for (const u of uses) {
      const known = [...(flags.get(u.command) ?? []), ...GLOBAL_FLAGS];
      for (const f of u.flags)
        expect(known, `docs/cli.md: "${u.line.trim()}" uses ${f}, which svc ${u.command} does not have`).toContain(f);
    }
  });

  it('no long flag anywhere on the page is one that no command has', () => {
    const all = new Set([...GLOBAL_FLAGS, ...[...flags.values()].flat()]);
    const named = new Set([...page.matchAll(/(?<![\w-])(--[a-z][a-z-]*[a-z])/g)].map((m) => m[1] ?? ''));
    expect([...named].filter((f) => !all.has(f))).toEqual([]);
  });
});
