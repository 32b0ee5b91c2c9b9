/**
 * `svc member set|list|remove` (C1): who holds which role on the dev
 * instance (`SVC_HOME/members.json`, or the database's membership table when
 * `SVC_DATABASE_URL` is set). Administration of a local instance: needs no credential.
 * @module
 */
import { NotFoundError } from '../../../errors';
import { renameIssues } from '../args';
import { defineCommand, type Command } from '../command';
import { clean, json, table } from '../output';
import { checkRole } from '../../../stores';

const SET_HELP = `Usage: svc member set --user <id> --resource <org|org/repo> --role <role>

Give a user a role on an org or a repo of the dev instance, replacing any role
they held there. Roles: owner, admin, editor, viewer (role:<name> works too).
An org role covers every repo of the org; a repo role adds to it on that repo.
Needs no credential: this is the local instance's administration. Roles live
in SVC_HOME/members.json, or, when SVC_DATABASE_URL is set, in the database's
svc_auth_members table, where every server on that database reads them on
each request.

Options:
  -u, --user <id>          user id (required)
  -r, --resource <res>     org or org/repo (required)
      --role <role>        owner | admin | editor | viewer (required)
  -h, --help               show this help

Example:
  svc member set --user alice --resource acme --role editor
`;

const LIST_HELP = `Usage: svc member list [--json]

List every membership of the dev instance (of the database's table when
SVC_DATABASE_URL is set).

Options:
      --json   print [{"user", "resource", "role"}] as JSON
  -h, --help   show this help
`;

const REMOVE_HELP = `Usage: svc member remove --user <id> --resource <org|org/repo>

Remove a user's role on an org or repo. Exits 1 when they had none there.

Options:
  -u, --user <id>          user id (required)
  -r, --resource <res>     org or org/repo (required)
  -h, --help               show this help
`;

const USER = { type: 'string', short: 'u', required: true } as const;
const RESOURCE = { type: 'string', short: 'r', required: true } as const;

/** The store's field names, as the flags the user typed. */
function asFlags(err: unknown): never {
  throw renameIssues(err, { userId: '--user', resource: '--resource', role: '--role' });
}

/** `svc member set`. */
export const memberSet = defineCommand({
  name: 'set',
  summary: 'give a user a role on an org or repo',
  help: SET_HELP,
  flags: { user: USER, resource: RESOURCE, role: { type: 'string', required: true } },
  needs: 'instance',
  input: ({ role }) => checkRole(role.startsWith('role:') ? role.slice(5) : role, '--role'),
  async run({ flags: { user, resource }, input: role, dev, io }) {
    await dev.members.set(user, resource, role).catch(asFlags);
    io.stdout(`${clean(user)} is ${role} on ${resource.toLowerCase()}\n`);
    return 0;
  },
});

/** `svc member list`. */
export const memberList = defineCommand({
  name: 'list',
  summary: 'list memberships',
  help: LIST_HELP,
  flags: { json: { type: 'boolean' } },
  needs: 'instance',
  async run({ flags, dev, io }) {
    const rows = await dev.members.list();
    if (flags.json) io.stdout(json(rows));
    else if (rows.length === 0) io.stdout("no members: add one with 'svc member set'\n");
    else
      io.stdout(
        table(
          ['USER', 'RESOURCE', 'ROLE'],
          rows.map((m) => [clean(m.user), m.resource, m.role]),
        ),
      );
    return 0;
  },
});

/** `svc member remove`. */
export const memberRemove = defineCommand({
  name: 'remove',
  summary: "remove a user's role on an org or repo",
  help: REMOVE_HELP,
  flags: { user: USER, resource: RESOURCE },
  needs: 'instance',
  async run({ flags: { user, resource }, dev, io }) {
    if (!(await dev.members.remove(user, resource).catch(asFlags))) {
      throw new NotFoundError(`${clean(user)} has no role on ${resource.toLowerCase()}`);
    }
    io.stdout(`removed ${clean(user)} from ${resource.toLowerCase()}\n`);
    return 0;
  },
});

/** The `member` group, in help order. */
export const memberCommands: readonly Command[] = [memberSet, memberList, memberRemove];
