/**
 * `svc auth login|logout|status|sessions` (docs/cli.md, C1, C2). The dev
 * instance has no OAuth: `login --user <id>` issues a session for that user
 * (with a record on the instance, like every session) and saves it in
 * `SVC_HOME/session.json` (mode 0600); `logout` revokes it on the instance,
 * then forgets it. `SVC_TOKEN`, when set, wins over the saved session.
 * @module
 */
import { rm } from 'node:fs/promises';
import { AuthenticationError, UnavailableError, ValidationError, type IssueInput } from '../../../errors';
import { LIFETIMES, parseShortDuration } from '../../../tokens';
import type { DevInstance } from '../../dev';
import { renameIssues } from '../args';
import { defineCommand, withHint, type Command } from '../command';
import { clean, dateText, json } from '../output';
import { authSessions } from './sessions';

const LOGIN_HELP = `Usage: svc auth login --user <id> [--expires <N>d|h|m]

Log in to the local dev instance as <id> (it has no OAuth: any user id of
letters, digits, '.', '_' and '-' is accepted; give it roles with
'svc member set'). The session is saved in SVC_HOME/session.json (mode 0600)
and used by the other commands unless SVC_TOKEN is set.

Options:
  -u, --user <id>        user id (required)
      --expires <dur>    session lifetime, e.g. 12h (default), 30m, 7d (at most 30d)
  -h, --help             show this help
`;

const LOGOUT_HELP = `Usage: svc auth logout

Revoke the saved session on the dev instance, so that a copy of it stops
working too, then forget it. A saved session that has expired or was already
revoked is simply forgotten. If the instance cannot be reached, the session
is kept and the command fails: run it again. Tokens you created stay valid
until revoked; 'svc auth sessions' shows and ends your other sessions.

Options:
  -h, --help   show this help
`;

const STATUS_HELP = `Usage: svc auth status [--json]

Show who the CLI acts as: the user, the kind of credential (session or pat)
and where it came from (SVC_TOKEN or the saved session). Exits 1 when there is
no usable credential.

Options:
      --json   print {"user", "kind", "source", "token"} as JSON
  -h, --help   show this help
`;

/** The name of the sessions `svc auth login` makes, as `svc auth sessions` shows them. */
const CLI_SESSION = 'cli';

/** `svc auth login`. */
export const authLogin = defineCommand({
  name: 'login',
  summary: 'log in to the dev instance as a user',
  help: LOGIN_HELP,
  flags: { user: { type: 'string', short: 'u', required: true }, expires: { type: 'string' } },
  needs: 'instance',
  input: ({ expires }) => {
    if (expires !== undefined) sessionLifetime(expires);
  },
  async run({ flags: { user, expires }, dev, io }) {
    const options = expires === undefined ? { name: CLI_SESSION } : { name: CLI_SESSION, expiresIn: expires };
    const token = await dev.auth.issueSession(user, options).catch((err: unknown) => {
      throw renameIssues(err, { userId: '--user', expiresIn: '--expires' });
    });
    const principal = await dev.auth.authenticate(token);
    await dev.session.update(() => ({ user, token }));
    io.stdout(`logged in as ${clean(user)} (session expires ${dateText(principal.expiresAt)})\n`);
    if (io.env.SVC_TOKEN) io.stderr('svc: note: SVC_TOKEN is set and takes precedence over this session\n');
    const roles = await dev.members.rolesOf(user);
    if (Object.keys(roles.orgs ?? {}).length + Object.keys(roles.repos ?? {}).length === 0) {
      io.stderr(`svc: note: ${clean(user)} has no roles yet: see 'svc member set --help'\n`);
    }
    return 0;
  },
});

/**
 * `--expires` of `auth login`, checked by the library's rule (T3) and refused in flag terms. A bare
 * number gets a hint rather than a guess: `30` could be minutes, hours or days here.
 */
function sessionLifetime(value: string): void {
  try {
    parseShortDuration(value, LIFETIMES.session);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const issues: IssueInput[] = err.issues.map((i) => ({ code: i.code, message: i.message, path: ['--expires'] }));
    const n = /^\s*([1-9][0-9]{0,6})\s*$/.exec(value)?.[1];
    if (n !== undefined) issues.push({ path: [], message: `a duration needs its unit: --expires ${n}d, ${n}h or ${n}m` });
    throw new ValidationError(issues, { cause: err });
  }
}

/**
 * End the saved session on the instance: `'revoked'` when this call ended it, else
 * what kept it from working already (an `AuthenticationError` reason such as
 * `expired` or `revoked`): nothing is left to revoke then. Any other failure (the
 * store unreachable) is thrown, so that the caller keeps the session to try again:
 * forgetting a session that still works would only look like a logout.
 */
async function endSaved(dev: DevInstance, token: string): Promise<string> {
  let principal;
  try {
    principal = await dev.auth.authenticate(token);
  } catch (err) {
    if (err instanceof AuthenticationError) return err.reason;
    throw err;
  }
  // Only `svc auth login` writes the file; anything else in it is not ours to revoke.
  if (principal.kind !== 'session' || principal.tokenId === undefined) return 'type';
  await dev.auth.client(principal).sessions.revoke(principal.tokenId);
  return 'revoked';
}

const ENDED_BEFORE: Record<string, string> = {
  expired: 'it had expired',
  revoked: 'it had already been revoked',
};

/** `svc auth logout`. */
export const authLogout = defineCommand({
  name: 'logout',
  summary: 'revoke the saved session and forget it',
  help: LOGOUT_HELP,
  flags: {},
  needs: 'instance',
  async run({ dev, io }) {
    const saved = await dev.session.read();
    if (saved === undefined) {
      io.stdout('not logged in\n');
      return 0;
    }
    const outcome = await endSaved(dev, saved.token).catch((err: unknown) => {
      throw withHint(err, "the saved session was kept (it may still work): run 'svc auth logout' again once the instance answers");
    });
    try {
      await rm(dev.session.path, { force: true });
    } catch (err) {
      throw new UnavailableError(`cannot remove ${dev.session.path}`, { cause: err });
    }
    const why =
      outcome === 'revoked'
        ? 'the session was revoked on the instance'
        : `the saved session was forgotten; ${ENDED_BEFORE[outcome] ?? 'this instance does not accept it'}`;
    io.stdout(`logged out: ${why}\n`);
    return 0;
  },
});

/** `svc auth status`. */
export const authStatus = defineCommand({
  name: 'status',
  summary: 'show who you are acting as',
  help: STATUS_HELP,
  flags: { json: { type: 'boolean' } },
  needs: 'signed-in',
  run({ flags, principal, source, io }) {
    const token = principal.tokenName ?? null;
    if (flags.json) {
      io.stdout(json({ user: principal.userId, kind: principal.kind, source, token, expiresAt: principal.expiresAt }));
    } else {
      const via = source === 'SVC_TOKEN' ? `SVC_TOKEN (token '${clean(token ?? '?')}')` : 'saved session';
      io.stdout(`logged in as ${clean(principal.userId)} with a ${principal.kind} from ${via}, expires ${dateText(principal.expiresAt)}\n`);
    }
    return 0;
  },
});

/** The `auth` group, in help order. */
export const authCommands: readonly Command[] = [authLogin, authLogout, authStatus, authSessions];
