/**
 * What every `svc` subcommand shares: its shape and opening the dev instance.
 * @module
 */
import { openInstance, type DevInstance } from '../dev';
import type { CliIO } from './output';

/**
 * One leaf command such as `svc token create`.
 *
 * @example
 * ```ts
 * const hello: Command = { name: 'hello', summary: 'say hello', help: 'Usage: svc hello\n', run: async (_a, io) => { io.stdout('hi\n'); return 0; } };
 * ```
 */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full `--help` text. */
  readonly help: string;
  /** Run with the arguments after the command's name; resolves to the exit code. */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/**
 * Open the dev instance for the length of `fn`, then release it.
 *
 * @example
 * ```ts
 * await withInstance(io, (dev) => dev.members.list());
 * ```
 */
export async function withInstance<T>(io: CliIO, fn: (dev: DevInstance) => Promise<T>): Promise<T> {
  const dev = await openInstance(io.env, { notice: (text) => io.stderr(`svc: ${text}\n`) });
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

/**
 * Print a help text on stdout and succeed (exit 0).
 *
 * @example
 * ```ts
 * if (flags.help) return help(io, TEXT);
 * ```
 */
export function help(io: { stdout(text: string): void }, text: string): number {
  io.stdout(text);
  return 0;
}
