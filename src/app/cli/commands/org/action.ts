/**
 * `svc org policy|requests|tokens <action> <org> [<id>...]` (docs/cli.md,
 * docs/organizations.md): an org owner's governance face,
 * `client(principal).org(name)`, over the dev instance with the caller's
 * credential (C2). The org and the ids are words, not flags, as GitHub's and
 * every CLI's org commands take them; this file reads them out of the
 * arguments and hands the rest to the one command skeleton.
 * @module
 */
import { ValidationError } from '../../../../errors';
import { defineCommand, type Command, type CommandContext, type FlagDef, type FlagValues } from '../../command';
import { closest } from '../../args';
import { clean, type CliIO } from '../../output';

type FlagDefs = Readonly<Record<string, FlagDef>>;

/** The words of an org command: the org, then the ids. */
interface Words {
  org: string;
  ids: string[];
}

/** What an org action states: as `defineCommand`, plus whether it takes ids. */
interface OrgActionSpec<F extends FlagDefs, I> {
  readonly name: string;
  readonly summary: string;
  readonly help: string;
  readonly flags: F;
  /** `'required'`: one id or more after the org; `'none'`: no word after the org. */
  readonly ids: 'required' | 'none';
  /** The action's own checks of its flags (before the instance is opened). */
  input?(flags: FlagValues<F>): I;
  run(context: CommandContext<F, I, 'signed-in'> & { words: Words }): Promise<number>;
}

/**
 * An org action such as `svc org policy set`: its words are read here, its flags by the skeleton.
 *
 * @example
 * ```ts
 * const get = orgAction({ name: 'get', summary: 'show', help: 'Usage: svc org policy get <org>\n', flags: {}, ids: 'none',
 *   run: async ({ words, dev, principal, io }) => { io.stdout(`${(await dev.auth.client(principal).org(words.org).policy.get()).org}\n`); return 0; } });
 * ```
 */
export function orgAction<const F extends FlagDefs, I = undefined>(spec: OrgActionSpec<F, I>): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    help: spec.help,
    flags: spec.flags,
    run(args, io) {
      const { words, rest } = splitWords(args, spec.flags);
      return defineCommand({
        name: spec.name,
        summary: spec.summary,
        help: spec.help,
        flags: spec.flags,
        needs: 'signed-in',
        input(flags) {
          checkWords(words, spec.ids);
          return spec.input === undefined ? (undefined as I) : spec.input(flags);
        },
        run: (context) => spec.run({ ...context, words: { org: words[0] ?? '', ids: words.slice(1) } }),
      }).run(rest, io);
    },
  };
}

/** The words among `args` (after `--`, all are words: an id may begin with '-'), and the flags with their values. */
function splitWords(args: readonly string[], flags: FlagDefs): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      words.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      words.push(arg);
      continue;
    }
    rest.push(arg);
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    // A string flag written apart takes the next argument as its value, even one that looks like a word.
    if (name !== undefined && !name.includes('=') && flags[name]?.type === 'string' && i + 1 < args.length) rest.push(args[++i] as string);
  }
  return { words, rest };
}

function checkWords(words: readonly string[], ids: 'required' | 'none'): void {
  const [org, ...rest] = words;
  if (org === undefined || org === '') throw new ValidationError([{ path: '', message: 'give the org right after the action' }]);
  if (org.includes('/')) throw new ValidationError([{ path: '', message: `'${clean(org)}' is a repo: give the org alone` }]);
  if (ids === 'required' && rest.length === 0) throw new ValidationError([{ path: '', message: 'give at least one id after the org' }]);
  if (ids === 'none' && rest.length > 0)
    throw new ValidationError([{ path: '', message: `unexpected argument '${clean(rest[0] ?? '')}'` }]);
}

/**
 * A second-level group such as `svc org policy`: its first word chooses the action.
 *
 * @example
 * ```ts
 * const policy = orgGroup('policy', 'show or change an org policy', [policyGet, policySet]);
 * ```
 */
export function orgGroup(name: string, summary: string, actions: readonly Command[]): Command & { actions: readonly Command[] } {
  const help = `Usage: svc org ${name} <action> <org> ...

${summary[0]?.toUpperCase()}${summary.slice(1)}.

Actions:
${actions.map((a) => `  ${a.name.padEnd(10)}${a.summary}`).join('\n')}

Options:
  -h, --help   show this help

Run 'svc org ${name} <action> --help' for the action's options.
`;
  return {
    name,
    summary,
    help,
    flags: {},
    actions,
    async run(args: readonly string[], io: CliIO) {
      const [first, ...rest] = args;
      if (first === '--help' || first === '-h') {
        io.stdout(help);
        return 0;
      }
      const action = actions.find((a) => a.name === first);
      if (action !== undefined) return action.run(rest, io);
      const names = actions.map((a) => a.name);
      const guess = first === undefined ? undefined : closest(first, names);
      const what = first === undefined ? `'svc org ${name}' needs an action` : `unknown action 'svc org ${name} ${clean(first)}'`;
      throw new ValidationError([
        { path: '', message: `${what}: ${names.join(', ')}${guess === undefined ? '' : ` (did you mean '${guess}'?)`}` },
      ]);
    },
  };
}
