/**
 * `svc auth logout|status` and the `auth` group (docs/cli.md, C1, C2); `login`
 * is in login.ts, `sessions` in sessions.ts. `logout` revokes the saved session
 * where it was made (the authorization server for a device sign-in, the dev
 * instance for `--user`), then forgets it. `SVC_TOKEN`, when set, wins over the
 * saved session.
 * @module
 */
import { rm } from 'node:fs/promises';
import { AuthenticationError, UnavailableError } from '../../../errors';
import type { DevInstance, SavedSession } from '../../dev';
import { defineCommand, withHint, type Command } from '../command';
import { revokeAtServer } from '../oauth';
import { clean, dateText, json } from '../output';
import { authLogin } from './login';
import { authSessions } from './sessions';

const LOGOUT_HELP = `Usage: svc auth logout

Revoke the saved session where it was made, so that a copy of it stops
working too, then forget it: a session signed in at a server (svc auth login)
is revoked there (RFC 7009: its refresh token, and with it every access token
of the sign-in); a session of 'svc auth login --user' is revoked on the dev
instance. A saved session that has expired or was already revoked is simply
forgotten. If the server or the instance cannot be reached, the session is
kept and the command fails: run it again. Tokens you created stay valid
until revoked; 'svc auth sessions' shows and ends your other sessions.

Options:
  -h, --help   show this help
`;

const STATUS_HELP = `Usage: svc auth status [--json]

Show who the CLI acts as: the user, the kind of credential (session or pat)
and where it came from (SVC_TOKEN or the saved session, with the server it
was signed in at). A saved session whose access token has expired is renewed
first. Exits 1 when there is no usable credential.

Options:
      --json   print {"user", "kind", "source", "token", "server", "expiresAt"} as JSON
  -h, --help   show this help
`;

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

/** A session of a server is revoked there (its refresh token ends the grant); one of the instance, here. */
async function endAnywhere(dev: DevInstance, saved: SavedSession): Promise<string> {
  if (saved.oauth === undefined) return endSaved(dev, saved.token);
  await revokeAtServer(saved.oauth);
  return 'revoked-at-server';
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
    const outcome = await endAnywhere(dev, saved).catch((err: unknown) => {
      const where = saved.oauth === undefined ? 'the instance' : saved.oauth.server;
      throw withHint(err, `the saved session was kept (it may still work): run 'svc auth logout' again once ${where} answers`);
    });
    try {
      await rm(dev.session.path, { force: true });
    } catch (err) {
      throw new UnavailableError(`cannot remove ${dev.session.path}`, { cause: err });
    }
    const why =
      outcome === 'revoked-at-server'
        ? `the session was revoked at ${saved.oauth?.server ?? 'the server'}`
        : outcome === 'revoked'
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
  async run({ flags, principal, source, dev, io }) {
    const token = principal.tokenName ?? null;
    const server = source === 'session' ? ((await dev.session.read())?.oauth?.server ?? null) : null;
    if (flags.json) {
      io.stdout(json({ user: principal.userId, kind: principal.kind, source, token, server, expiresAt: principal.expiresAt }));
    } else {
      const via =
        source === 'SVC_TOKEN'
          ? `SVC_TOKEN (token '${clean(token ?? '?')}')`
          : server === null
            ? 'saved session'
            : `saved session (signed in at ${server})`;
      io.stdout(`logged in as ${clean(principal.userId)} with a ${principal.kind} from ${via}, expires ${dateText(principal.expiresAt)}\n`);
    }
    return 0;
  },
});

/** The `auth` group, in help order. */
export const authCommands: readonly Command[] = [authLogin, authLogout, authStatus, authSessions];
