/**
 * The `svc` dispatcher: picks the command, runs it, and turns every failure
 * into a message on stderr starting with `svc: ` and an exit code (C5):
 * 0 success, 2 invalid usage or input (`ValidationError`), 1 any other refusal or failure.
 * @module
 */
import { SvcAuthError, ValidationError } from '../../errors';
import { redactTokens } from '../../tokens';
import { closest } from './args';
import { hintOf, type Command } from './command';
import { authCommands, mcpBridgeCommand, memberCommands, orgCommands, proofCommand, serveCommand, tokenCommands } from './commands';
import { clean, type CliIO } from './output';
import { packageVersion } from './version';

interface Group {
  name: string;
  summary: string;
  commands: readonly Command[];
}

const GROUPS: readonly Group[] = [
  { name: 'token', summary: 'create, list, show and revoke personal access tokens', commands: tokenCommands },
  {
    name: 'auth',
    summary: 'sign in (device code, or --user on the dev instance), log out, show who you are, see and end sessions',
    commands: authCommands,
  },
  { name: 'member', summary: 'give users roles on orgs and repos (dev instance)', commands: memberCommands },
  {
    name: 'org',
    summary: 'govern the tokens that reach an org: its policy, approvals, inventory, service accounts (needs org:admin)',
    commands: orgCommands,
  },
];

/** `prefix command`, or each of its actions (nested: `org service-accounts clients create`). */
function listed(prefix: string, c: Command): (readonly [string, string])[] {
  const name = `${prefix} ${c.name}`;
  return 'actions' in c ? (c.actions as readonly Command[]).flatMap((a) => listed(name, a)) : [[name, c.summary] as const];
}

/** Every command as `svc --help` lists it: `token create`, and each action of a command that has some (`org policy set`). */
const LISTED: readonly (readonly [string, string])[] = [
  ...GROUPS.flatMap((g) => g.commands.flatMap((c) => listed(g.name, c))),
  ['serve', serveCommand.summary],
  ['proof', proofCommand.summary],
  ['mcp-bridge', mcpBridgeCommand.summary],
];
const WIDTH = Math.max(...LISTED.map(([name]) => name.length)) + 2;

const MAIN_HELP = `svc: personal access tokens, scopes and roles on a local dev instance

Usage: svc <command> [<subcommand>] [flags]

Commands:
${LISTED.map(([name, summary]) => `  ${name.padEnd(WIDTH)}${summary}`).join('\n')}

Getting started:
  svc member set --user alice --resource acme --role editor
  svc auth login --user alice
  T=$(svc token create -n ci --scope acme/web=repo:read)
  svc serve --port 8080 &
  curl -H "Authorization: Bearer $T" http://127.0.0.1:8080/api/repos/acme/web/head
  svc auth login      # sign in as a person: approve in the browser (svc serve running)

Credentials: SVC_TOKEN when set, else the session saved by 'svc auth login'. A
token bound to a key (--bind-key) is used with proofs by the key SVC_TOKEN_KEY
names, else the one kept in SVC_HOME/keys.
State: SVC_HOME (default ~/.svc): keys, token records, members, session (files
mode 0600 in a 0700 folder). With SVC_DATABASE_URL token records and members live in
PostgreSQL (needs the 'pg' package). NO_COLOR turns colour off.
Exit codes: 0 success, 2 invalid usage or input, 1 refused or failed.

Run 'svc <command> --help' for the flags of a command. 'svc --version' prints the version.
`;

function groupHelp(g: Group): string {
  return `Usage: svc ${g.name} <subcommand> [flags]

${g.summary[0]?.toUpperCase()}${g.summary.slice(1)}.

Subcommands:
${g.commands.map((c) => `  ${c.name.padEnd(10)}${c.summary}`).join('\n')}

Run 'svc ${g.name} <subcommand> --help' for its flags.
`;
}

/**
 * Run `svc` with `argv` (the arguments after the program name); resolves to
 * the exit code. Never rejects.
 *
 * @example
 * ```ts
 * const code = await runCli(['token', 'list', '--json'], {
 *   env: process.env, isTTY: false,
 *   stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t),
 * });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const [first, second] = argv;
  if (first === undefined) {
    io.stderr(MAIN_HELP);
    return 2;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout(MAIN_HELP);
    return 0;
  }
  if (first === '--version' || first === '-V') {
    io.stdout(`svc ${packageVersion()}\n`);
    return 0;
  }
  if (first === 'serve') return runOne(serveCommand, argv.slice(1), io, 'svc serve --help');
  if (first === 'proof') return runOne(proofCommand, argv.slice(1), io, 'svc proof --help');
  if (first === 'mcp-bridge') return runOne(mcpBridgeCommand, argv.slice(1), io, 'svc mcp-bridge --help');
  const group = GROUPS.find((g) => g.name === first);
  if (group === undefined) {
    const known = [...GROUPS.map((g) => g.name), 'serve', 'proof', 'mcp-bridge'];
    return usage(io, `unknown command '${clean(first)}'`, suggest(first, known, 'svc'), 'svc --help');
  }
  if (second === undefined || second === '--help' || second === '-h' || second === 'help') {
    if (second === undefined) {
      io.stderr(groupHelp(group));
      return 2;
    }
    io.stdout(groupHelp(group));
    return 0;
  }
  const command = group.commands.find((c) => c.name === second);
  if (command === undefined) {
    const hint = suggest(
      second,
      group.commands.map((c) => c.name),
      `svc ${group.name}`,
    );
    return usage(io, `unknown command 'svc ${group.name} ${clean(second)}'`, hint, `svc ${group.name} --help`);
  }
  return runOne(command, argv.slice(2), io, `svc ${group.name} ${command.name} --help`);
}

function suggest(word: string, known: readonly string[], prefix: string): string | undefined {
  const near = closest(word, known);
  return near === undefined ? undefined : `did you mean '${prefix} ${near}'?`;
}

function usage(io: CliIO, message: string, hint: string | undefined, helpCommand: string): number {
  say(io, message);
  if (hint !== undefined) say(io, hint);
  io.stderr(`svc: run '${helpCommand}' for usage\n`);
  return 2;
}

async function runOne(command: Command, args: readonly string[], io: CliIO, helpCommand: string): Promise<number> {
  try {
    return await command.run(args, io);
  } catch (err) {
    return report(err, io, helpCommand);
  }
}

// Belt and braces: no message the CLI prints may carry a token (usage errors echo arguments).
function say(io: CliIO, text: string): void {
  io.stderr(`svc: ${clean(redactTokens(text))}\n`);
}

/**
 * Print an error and choose the exit code (C5).
 *
 * @example
 * ```ts
 * return report(err, io, 'svc token create --help'); // 2 for a ValidationError, else 1
 * ```
 */
export function report(err: unknown, io: CliIO, helpCommand: string): number {
  if (err instanceof ValidationError) {
    for (const i of err.issues.slice(0, 10)) say(io, i.pathText ? `${i.pathText}: ${i.message}` : i.message);
    if (err.issues.length > 10) say(io, `(and ${err.issues.length - 10} more problems)`);
    io.stderr(`svc: run '${helpCommand}' for usage\n`);
    return 2;
  }
  if (err instanceof SvcAuthError) {
    say(io, err.message);
    const hint = hintOf(err);
    if (hint !== undefined) say(io, `hint: ${hint}`);
    return 1;
  }
  say(io, `unexpected error: ${err instanceof Error ? err.message : String(err)}`);
  return 1;
}
