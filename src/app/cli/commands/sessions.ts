/**
 * `svc auth sessions [--revoke <id>] [--json]` (docs/cli.md): the SDK's
 * `client(principal).sessions.*` over the dev instance. Every `svc auth login`
 * is a session with a record; this lists them and ends one. Only a session may
 * (a PAT in SVC_TOKEN is refused by the library with its reason).
 * @module
 */
import { NotFoundError } from '../../../errors';
import type { SessionInfo } from '../../../service';
import { renameIssues } from '../args';
import { defineCommand, withHint } from '../command';
import { clean, dateText, expiryText, json, lastUsedText, relativeText, statusText, table, useColour } from '../output';

const SESSIONS_HELP = `Usage: svc auth sessions [--revoke <id>] [--json]

List your sessions on the dev instance: each 'svc auth login' made one. For
each: its id, name, status (active, expired, revoked), when it was created,
when it expires, when it was last used, and what it is (for a grant you
approved on the server's consent page: the app's name as it gave it, its
client id, where it returns to, and what it may do); '*' marks the session
this command ran with. With --revoke, end one session instead: it is refused from its next
request on (the other sessions and your tokens stay valid). Needs a session
(the saved one, or one in SVC_TOKEN): a personal access token may not see or
end sessions.

Options:
      --revoke <id>   end the session with this id (from the list); an id may
                      start with '-', so write --revoke=<id>
      --json          print the sessions (or the ended one) as JSON
  -h, --help          show this help

Examples:
  svc auth sessions
  svc auth sessions --revoke=-q0Zr3Fh1b2RkZXYtc2Vzc2
`;

/** The table of `svc auth sessions`: times relative to `nowMs`, the current session starred. */
function sessionTable(infos: readonly SessionInfo[], colour: boolean, nowMs: number): string {
  if (infos.length === 0) return 'no sessions\n';
  return table(
    ['', 'ID', 'NAME', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED', 'ABOUT'],
    infos.map((s) => [
      s.current ? '*' : '',
      s.id,
      clean(s.name),
      statusText(s.status, colour),
      relativeText(s.createdAt, Math.max(nowMs, s.createdAt.getTime())),
      expiryText(s, nowMs),
      lastUsedText(s, nowMs),
      clean(s.description ?? ''),
    ]),
  );
}

/** `svc auth sessions`. */
export const authSessions = defineCommand({
  name: 'sessions',
  summary: 'list your sessions, or end one',
  help: SESSIONS_HELP,
  flags: { revoke: { type: 'string' }, json: { type: 'boolean' } },
  needs: 'signed-in',
  async run({ flags, dev, principal, source, io }) {
    const api = dev.auth.client(principal).sessions;
    const nowMs = dev.now().getTime();
    if (flags.revoke === undefined) {
      const infos = await api.list();
      io.stdout(flags.json ? json(infos) : sessionTable(infos, useColour(io), nowMs));
      return 0;
    }
    const ended = await api.revoke(flags.revoke).catch((err: unknown) => {
      throw err instanceof NotFoundError
        ? withHint(err, "'svc auth sessions' lists the ids of your sessions")
        : renameIssues(err, { id: '--revoke' });
    });
    if (flags.json) io.stdout(json(ended));
    else io.stdout(`revoked session ${ended.id} (${clean(ended.name)}, created ${dateText(ended.createdAt)})\n`);
    if (ended.current) {
      const where = source === 'SVC_TOKEN' ? 'SVC_TOKEN holds it' : "run 'svc auth login --user <id>' to sign in again";
      io.stderr(`svc: note: that was the session this command ran with: ${where}\n`);
    }
    return 0;
  },
});
