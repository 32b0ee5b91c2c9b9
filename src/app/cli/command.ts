/**
 * What every `svc` subcommand shares: its shape, opening the dev instance,
 * and finding the caller's credential (C2).
 * @module
 */
import { AuthenticationError } from '../../errors';
import type { Principal } from '../../core/policy';
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

/** Where the credential came from. */
export type CredentialSource = 'SVC_TOKEN' | 'session';

/**
 * The caller's credential (C2): `SVC_TOKEN` when set and non-empty, else the
 * session saved by `svc auth login`.
 *
 * @throws AuthenticationError reason `missing` when there is neither.
 * @example
 * ```ts
 * const { token, source } = await credential(io, dev);
 * ```
 */
export async function credential(io: CliIO, dev: DevInstance): Promise<{ token: string; source: CredentialSource }> {
  const fromEnv = io.env.SVC_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') return { token: fromEnv.trim(), source: 'SVC_TOKEN' };
  const saved = await dev.session.read();
  if (saved !== undefined) return { token: saved.token, source: 'session' };
  throw new AuthenticationError('missing', "not logged in: run 'svc auth login --user <id>' or set SVC_TOKEN");
}

const REASON_TEXT: Record<string, string> = {
  missing: 'no credential',
  malformed: 'it is not a token',
  signature: 'it is not a valid token of this instance',
  expired: 'it has expired',
  revoked: 'it has been revoked',
  unknown: 'it is not known to this instance',
  type: 'this kind of token is not accepted here',
};

/**
 * Authenticate the caller's credential. A refusal names its source and reason
 * (never the token): `SVC_TOKEN was not accepted: it has been revoked`.
 *
 * @throws AuthenticationError as {@link credential} and `Auth.authenticate` do.
 * @example
 * ```ts
 * const { principal } = await signIn(io, dev);
 * const client = dev.auth.client(principal);
 * ```
 */
export async function signIn(io: CliIO, dev: DevInstance): Promise<{ principal: Principal; source: CredentialSource }> {
  const { token, source } = await credential(io, dev);
  try {
    return { principal: await dev.auth.authenticate(token), source };
  } catch (err) {
    if (!(err instanceof AuthenticationError)) throw err;
    const what = source === 'SVC_TOKEN' ? 'SVC_TOKEN was' : 'the saved session (svc auth login) was';
    const hint =
      source === 'session' && (err.reason === 'expired' || err.reason === 'signature') ? ": run 'svc auth login --user <id>' again" : '';
    throw new AuthenticationError(err.reason, `${what} not accepted: ${REASON_TEXT[err.reason] ?? err.reason}${hint}`, { cause: err });
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
