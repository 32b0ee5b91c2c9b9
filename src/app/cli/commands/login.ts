/**
 * `svc auth login`: by device code at an authorization server (a person
 * approves in a browser), or `--user <id>` on the local dev instance (which
 * asks nothing: a development shortcut). Either way the session is saved in
 * `SVC_HOME/session.json` (mode 0600) for the other commands.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ValidationError, type IssueInput } from '../../../errors';
import { CLI_CLIENT_ID } from '../../../oauth';
import { LIFETIMES, parseShortDuration } from '../../../tokens';
import type { CliIO } from '../output';
import type { DevInstance } from '../../dev';
import { renameIssues } from '../args';
import { defineCommand } from '../command';
import { deviceLogin, discover, findServer, savedFrom, subjectOf, workloadSignIn, type ServerSource } from '../oauth';
import { readWorkloadToken } from './workload-token';
import { clean, dateText } from '../output';

const LOGIN_HELP = `Usage: svc auth login [--server <url>]
       svc auth login --user <id> [--expires <N>d|h|m]
       svc auth login --workload-token <file|-> [--server <url>] [--print]

Sign in by device code (RFC 8628) at an authorization server: the server is
--server, else SVC_URL, else the 'svc serve' running on this SVC_HOME (it
records its URL there). svc prints on stderr a URL to open in a browser, on a
line of its own, and a code to check; sign in there and allow. The svc
command line asks for full access as you (it manages your tokens); the
consent page says so. svc waits (at the server's pace) until you allow, deny,
or the code expires; a denial or an expired code exits 2. The session (an
access token, renewed with its refresh token when it expires) is saved in
SVC_HOME/session.json (mode 0600) and used by the other commands unless
SVC_TOKEN is set. Those commands check it with the server's keys, so the
server must be running, with its records in this SVC_HOME.

The server URL must be http(s) without a user name, password or path, and
https unless its host is a loopback address.

With --user, log in to the local dev instance as <id> instead, without a
server (it asks nothing: any user id of letters, digits, '.', '_' and '-' is
accepted; give it roles with 'svc member set').

With --workload-token, a CI job or another workload signs in with its own
identity token (GitHub Actions, GitLab CI, Kubernetes), read from the file
or from stdin ('-'), with no secret stored anywhere: the server exchanges it
(RFC 7523 jwt-bearer grant) for a short-lived token of the service account
its rules name, once per token, and only if the token's claims match a rule
exactly (the refusal says which claims did not). The token is saved as the
session (nothing secret is printed), or with --print written to stdout alone
for 'Authorization: Bearer' (nothing saved).

Options:
      --server <url>     the authorization server, e.g. http://127.0.0.1:8080
  -u, --user <id>        log in to the local dev instance as this user
      --expires <dur>    with --user: session lifetime, e.g. 12h (default),
                         30m, 7d (at most 30d)
      --workload-token <file|->
                         sign in with this workload identity token (a
                         file, or - for stdin; at most 16 KiB)
      --print            with --workload-token: print the token on stdout
                         instead of saving it
  -h, --help             show this help
`;

/** The name of the sessions `svc auth login --user` makes, as `svc auth sessions` shows them. */
const CLI_SESSION = 'cli';

/** `svc auth login`. */
export const authLogin = defineCommand({
  name: 'login',
  summary: 'sign in (device code at a server, or --user on the dev instance)',
  help: LOGIN_HELP,
  flags: {
    user: { type: 'string', short: 'u' },
    expires: { type: 'string' },
    server: { type: 'string' },
    'workload-token': { type: 'string' },
    print: { type: 'boolean' },
  },
  needs: 'instance',
  input: ({ user, expires, server, 'workload-token': workload, print }) => {
    const issues: IssueInput[] = [];
    if (workload !== undefined && user !== undefined)
      issues.push({
        path: '--workload-token',
        message: 'signs in as a service account at a server; --user logs in on the local instance: give one',
      });
    if (workload === '') issues.push({ path: '--workload-token', message: 'must name a file, or - for stdin' });
    if (print === true && workload === undefined)
      issues.push({ path: '--print', message: 'only with --workload-token: other sign-ins save their session' });
    if (user !== undefined && server !== undefined)
      issues.push({
        path: '--server',
        message: '--user logs in on the local instance; --server is for signing in by device code: give one',
      });
    if (expires !== undefined && user === undefined)
      issues.push({ path: '--expires', message: 'only with --user: the server decides how long its sessions last' });
    if (user === '') issues.push({ path: '--user', message: 'must not be empty' });
    if (issues.length > 0) throw new ValidationError(issues);
    if (expires !== undefined) sessionLifetime(expires);
  },
  async run({ flags: { user, expires, server, 'workload-token': workload, print }, dev, io }) {
    if (workload !== undefined) return workloadLogin(dev, io, server, workload, print === true);
    const code = user === undefined ? await deviceSignIn(dev, io, server) : await localLogin(dev, io, user, expires);
    if (code === 0 && io.env.SVC_TOKEN) io.stderr('svc: note: SVC_TOKEN is set and takes precedence over this session\n');
    return code;
  },
});

/** `--user`: a session of the local instance, as before there was a server. */
async function localLogin(dev: DevInstance, io: CliIO, user: string, expires: string | undefined): Promise<number> {
  const options = expires === undefined ? { name: CLI_SESSION } : { name: CLI_SESSION, expiresIn: expires };
  const token = await dev.auth.issueSession(user, options).catch((err: unknown) => {
    throw renameIssues(err, { userId: '--user', expiresIn: '--expires' });
  });
  const principal = await dev.auth.authenticate(token);
  await dev.session.update(() => ({ user, token }));
  io.stdout(`logged in as ${clean(user)} (session expires ${dateText(principal.expiresAt)})\n`);
  const roles = await dev.members.rolesOf(user);
  if (Object.keys(roles.orgs ?? {}).length + Object.keys(roles.repos ?? {}).length === 0) {
    io.stderr(`svc: note: ${clean(user)} has no roles yet: see 'svc member set --help'\n`);
  }
  return 0;
}

/** The server to sign in at, found by {@link findServer}, or a usage error that says how to name one. */
async function serverOf(dev: DevInstance, io: CliIO, flag: string | undefined): Promise<{ url: string; source: ServerSource }> {
  const found = await findServer(flag, io.env, dev.home);
  if (found === undefined) {
    throw new ValidationError([
      {
        path: [],
        message:
          "no server to sign in at: start 'svc serve' on this SVC_HOME (it records its URL there), pass --server <url> or set SVC_URL; or log in on the local instance with --user <id>",
      },
    ]);
  }
  return found;
}

/** No `--user`: the device flow at the server found by {@link serverOf}. */
async function deviceSignIn(dev: DevInstance, io: CliIO, flag: string | undefined): Promise<number> {
  const found = await serverOf(dev, io, flag);
  const endpoints = await discover(found.url, found.source);
  io.stderr(`svc: signing in at ${found.url} (${found.source === 'svc serve' ? 'the svc serve on this SVC_HOME' : found.source})\n`);
  const outcome = await deviceLogin(endpoints, CLI_CLIENT_ID, {
    now: Date.now,
    sleep: (ms) => sleep(ms),
    show: (uri, code) => {
      // The URL alone on its line, so that a terminal makes it a link and a script can pick it out.
      io.stderr(
        `svc: open this page in a browser, sign in and allow:\n${clean(uri)}\nsvc: check that the page shows the code ${clean(code)}\nsvc: waiting for approval...\n`,
      );
    },
  });
  if (outcome.kind === 'denied') {
    io.stderr("svc: sign-in denied in the browser (access_denied): nothing was saved; run 'svc auth login' to try again\n");
    return 2;
  }
  if (outcome.kind === 'expired') {
    io.stderr("svc: the code expired before it was approved (expired_token): nothing was saved; run 'svc auth login' to try again\n");
    return 2;
  }
  const saved = savedFrom(found.url, CLI_CLIENT_ID, outcome.tokens, Date.now());
  await dev.session.update(() => saved);
  io.stdout(`logged in as ${clean(saved.user)} at ${found.url}\n`);
  return 0;
}

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

/** `--workload-token`: the workload's identity token exchanged at the server, then saved (or printed with `--print`). */
async function workloadLogin(dev: DevInstance, io: CliIO, flag: string | undefined, from: string, print: boolean): Promise<number> {
  const assertion = await readWorkloadToken(from);
  const found = await serverOf(dev, io, flag);
  const got = await workloadSignIn(await discover(found.url, found.source), assertion);
  const who = subjectOf(got.accessToken);
  const minutes = Math.round(got.expiresIn / 60);
  const what = `a token of ${clean(who)} for ${minutes} minutes${got.scope === undefined ? '' : ` (${clean(got.scope)})`}`;
  if (print) {
    io.stdout(`${got.accessToken}\n`);
    io.stderr(`svc: ${what} from ${found.url}, printed on stdout (nothing saved)\n`);
    return 0;
  }
  await dev.session.update(() => ({ user: who, token: got.accessToken }));
  io.stdout(`logged in as ${clean(who)} at ${found.url}: ${what}\n`);
  return 0;
}
