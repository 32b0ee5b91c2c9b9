/**
 * The one skeleton of every `svc` subcommand. A command states only what is
 * its own (name, help, flags, what it needs, what it does) and
 * {@link defineCommand} does the rest the same way for all: parse strictly,
 * answer `--help`, refuse a missing required flag, check the flags further
 * before any file is touched, open the dev instance, sign the caller in when
 * the command needs one, run, release the instance.
 * @module
 */
import type { Principal } from '../../core/policy';
import { openInstance, type DevInstance, type OpenOptions } from '../dev';
import { parseFlags, required, type FlagSpec, type Flags } from './args';
import { signIn, type CredentialSource } from './credential';
import type { CliIO } from './output';

/**
 * One leaf command such as `svc token create`, as the dispatcher runs it.
 *
 * @example
 * ```ts
 * const hello: Command = { name: 'hello', summary: 'say hello', help: 'Usage: svc hello\n', flags: {}, run: async (_a, io) => { io.stdout('hi\n'); return 0; } };
 * ```
 */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full `--help` text. */
  readonly help: string;
  /** The flags it accepts besides `--help`, by long name. */
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /** Run with the arguments after the command's name; resolves to the exit code. */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/**
 * One flag of a command: its parsing (args.ts), and whether it must be given.
 *
 * @example
 * ```ts
 * const name: FlagDef = { type: 'string', short: 'n', required: true };
 * ```
 */
export interface FlagDef extends FlagSpec {
  /** A string flag that must be given, not empty (a usage error otherwise, before anything else is checked). */
  required?: boolean;
}

type FlagDefs = Readonly<Record<string, FlagDef>>;

/** What a command's `run` reads for each of its flags: a boolean, a list (repeatable), a string (required), or a string or `undefined`. */
export type FlagValues<F extends FlagDefs> = {
  readonly [K in keyof F]: F[K]['type'] extends 'boolean'
    ? boolean
    : F[K]['multiple'] extends true
      ? string[] | undefined
      : F[K]['required'] extends true
        ? string
        : string | undefined;
};

/** What a command needs before it runs: the dev instance, or the instance and a signed-in caller (C2). */
export type Needs = 'instance' | 'signed-in';

/** What `run` is given: its flags and input, where to write, and what it said it needs. */
export type CommandContext<F extends FlagDefs, I, N extends Needs> = {
  flags: FlagValues<F>;
  input: I;
  io: CliIO;
  dev: DevInstance;
} & (N extends 'signed-in' ? { principal: Principal; source: CredentialSource } : unknown);

/**
 * What a command states about itself.
 *
 * @example
 * ```ts
 * const spec: CommandSpec<{ json: { type: 'boolean' } }, undefined, 'instance'> = {
 *   name: 'list', summary: 'list memberships', help: 'Usage: svc member list [--json]\n',
 *   flags: { json: { type: 'boolean' } }, needs: 'instance',
 *   run: async ({ dev, io }) => { io.stdout(`${(await dev.members.list()).length}\n`); return 0; },
 * };
 * ```
 */
export interface CommandSpec<F extends FlagDefs, I, N extends Needs> {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full `--help` text; its Options name exactly `flags` (test/cli/command.test.ts). */
  readonly help: string;
  readonly flags: F;
  readonly needs: N;
  /** The command's own checks of its flags, read into its input: they run before the instance is opened, so a usage error costs no I/O. */
  input?(flags: FlagValues<F>): I;
  /** How the instance is opened for this command, from its input (`svc serve --trust-issuer`); default as every command. */
  open?(input: I): Pick<OpenOptions, 'trustedIssuers' | 'trustProxy' | 'trustedWorkloads' | 'dpopNonce'>;
  /** A refusal of the parser, made more helpful for this command (for example a hint for a `--scope` value split by a space). */
  parseError?(err: unknown, args: readonly string[]): unknown;
  /** Do the work; returns (or resolves to) the exit code. */
  run(context: CommandContext<F, I, N>): number | Promise<number>;
}

/**
 * A command from what it states: see the module's description for the steps
 * every command shares, in their order.
 *
 * @example
 * ```ts
 * export const authStatus = defineCommand({
 *   name: 'status', summary: 'show who you are acting as', help: STATUS_HELP,
 *   flags: { json: { type: 'boolean' } }, needs: 'signed-in',
 *   run: async ({ principal, io }) => { io.stdout(`${principal.userId}\n`); return 0; },
 * });
 * ```
 */
export function defineCommand<const F extends FlagDefs, I = undefined, N extends Needs = 'instance'>(spec: CommandSpec<F, I, N>): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    help: spec.help,
    flags: spec.flags,
    async run(args, io) {
      let parsed: Flags;
      try {
        parsed = parseFlags(args, spec.flags);
      } catch (err) {
        throw spec.parseError === undefined ? err : spec.parseError(err, args);
      }
      if (parsed.help === true) {
        io.stdout(spec.help);
        return 0;
      }
      const flags = valuesOf(parsed, spec.flags);
      const input = spec.input === undefined ? (undefined as I) : spec.input(flags);
      // Each branch builds the context its `needs` promises; TypeScript cannot follow a runtime value into `N`.
      const run = async (context: object): Promise<number> => spec.run(context as CommandContext<F, I, N>);
      return withInstance(
        io,
        async (dev) => {
          if (spec.needs === 'instance') return run({ flags, input, io, dev });
          const { principal, source } = await signIn(io, dev);
          return run({ flags, input, io, dev, principal, source });
        },
        // A command that acts as the user trusts the server its saved session came from (if any).
        { ...(spec.open?.(input) ?? {}), ...(spec.needs === 'signed-in' ? { trustSavedSession: true } : {}) },
      );
    },
  };
}

/** The parsed flags as `run` reads them; a missing required flag is refused here, in the order the flags are declared. */
function valuesOf<F extends FlagDefs>(parsed: Flags, defs: F): FlagValues<F> {
  const out: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'boolean') out[name] = parsed[name] === true;
    else if (def.required === true) out[name] = required(parsed, name);
    else out[name] = parsed[name];
  }
  return out as FlagValues<F>;
}

/** Open the dev instance for the length of `fn`, then release it; a notice of the instance (a tightened home) goes to stderr. */
async function withInstance<T>(
  io: CliIO,
  fn: (dev: DevInstance) => Promise<T>,
  options: Pick<OpenOptions, 'trustedIssuers' | 'trustProxy' | 'trustSavedSession'>,
): Promise<T> {
  const dev = await openInstance(io.env, { ...options, notice: (text) => io.stderr(`svc: ${text}\n`) });
  try {
    return await fn(dev);
  } finally {
    await dev.close();
  }
}

// A hint rides beside the error rather than inside its message: the message stays the library's
// own (one line, its wording), and the dispatcher prints the hint on the line after it.
const HINTS = new WeakMap<object, string>();

/**
 * `err` with a hint for the user, printed as `svc: hint: …` after the error's own message.
 *
 * @example
 * ```ts
 * throw withHint(err, "run 'svc auth login --user <id>' first");
 * ```
 */
export function withHint(err: unknown, hint: string): unknown {
  if (typeof err === 'object' && err !== null) HINTS.set(err, hint);
  return err;
}

/**
 * The hint given to `err` by {@link withHint}, if any.
 *
 * @example
 * ```ts
 * const hint = hintOf(err); // string | undefined
 * ```
 */
export function hintOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? HINTS.get(err) : undefined;
}
