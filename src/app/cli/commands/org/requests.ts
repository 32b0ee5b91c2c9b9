/**
 * `svc org requests list|approve|deny <org> [<id>...]` (G3): the tokens waiting
 * for an owner's approval, and the owner's decision. A request's id is its token's id.
 * @module
 */
import { ValidationError } from '../../../../errors';
import type { OrgRequest } from '../../../../service';
import type { OrgAccessStatus } from '../../../../stores';
import { renameIssues } from '../../args';
import { withHint } from '../../command';
import { clean, dateText, json, scopeText, table } from '../../output';
import { orgAction, orgGroup } from './action';

const LIST_HELP = `Usage: svc org requests list <org> [--status <status>] [--json]

List the tokens waiting for an owner's approval in an org (with --status,
the decided ones): the request id (the token's id, which approve and deny
take), the token's name and owner, the scopes that touch the org, the
owner's justification, when it was asked. Needs org:admin on the org.

Options:
      --status <status>   pending (default), approved, denied or revoked
      --json              print the requests as JSON
  -h, --help              show this help

Example:
  svc org requests list acme
`;

const decideHelp = (
  verb: 'approve' | 'deny',
  what: string,
): string => `Usage: svc org requests ${verb} <org> <id>... [--reason <text>] [--json]

${what} Give 1 to 100 request ids (from 'svc org requests list'); an id that
starts with '-' goes after --. When any id is not a token reaching the org,
nothing changes. Needs org:admin on the org.

Options:
      --reason <text>   why (one line, at most 1024 characters); the token's owner sees it
      --json            print the decided requests as JSON
  -h, --help            show this help

Example:
  svc org requests ${verb} acme <id> --reason 'CI of the web team'
`;

const APPROVE_HELP = decideHelp(
  'approve',
  "Approve tokens' requests to reach an org: each holds from its next request\n(a token made before the org required approval may be approved by its id too).",
);
const DENY_HELP = decideHelp('deny', 'Deny requests: those tokens stay refused in the org (their other orgs are not\naffected).');

const STATUSES: readonly OrgAccessStatus[] = ['pending', 'approved', 'denied', 'revoked'];

/**
 * Read a `--status` of org access.
 *
 * @example
 * ```ts
 * accessStatus('pending', '--status'); // 'pending'
 * ```
 */
export function accessStatus(value: string, flag: string): OrgAccessStatus {
  const found = STATUSES.find((s) => s === value);
  if (found === undefined) throw new ValidationError([{ path: flag, message: `must be one of ${STATUSES.join(', ')}` }]);
  return found;
}

function requestTable(rows: readonly OrgRequest[]): string {
  if (rows.length === 0) return 'no requests\n';
  return table(
    ['ID', 'TOKEN', 'OWNER', 'STATUS', 'REQUESTED', 'SCOPES', 'JUSTIFICATION'],
    rows.map((r) => [
      r.id,
      clean(r.tokenName),
      clean(r.ownerId),
      r.status,
      dateText(r.requestedAt),
      scopeText(r.scopes),
      clean(r.justification ?? r.reason ?? ''),
    ]),
  );
}

const JSON_FLAG = { type: 'boolean' } as const;

const requestsList = orgAction({
  name: 'list',
  summary: 'list the requests waiting (or decided)',
  help: LIST_HELP,
  flags: { status: { type: 'string' }, json: JSON_FLAG },
  ids: 'none',
  input: ({ status }) => (status === undefined ? undefined : accessStatus(status, '--status')),
  async run({ words, input: status, flags, dev, principal, io }) {
    const api = dev.auth.client(principal).org(words.org).requests;
    const rows = await (status === undefined ? api.list() : api.list({ status }));
    io.stdout(flags.json ? json(rows) : requestTable(rows));
    return 0;
  },
});

/** A refusal naming unknown ids gets the command that lists the right ones. */
function decisionError(err: unknown, org: string): unknown {
  return withHint(renameIssues(err, { reason: '--reason', ids: 'ids' }), `'svc org requests list ${clean(org)}' lists the request ids`);
}

function decide(verb: 'approve' | 'deny', help: string, summary: string) {
  return orgAction({
    name: verb,
    summary,
    help,
    flags: { reason: { type: 'string' }, json: JSON_FLAG },
    ids: 'required',
    async run({ words, flags, dev, principal, io }) {
      const api = dev.auth.client(principal).org(words.org).requests;
      const options = flags.reason === undefined ? {} : { reason: flags.reason };
      const done = await (verb === 'approve' ? api.approve(words.ids, options) : api.deny(words.ids, options)).catch((err: unknown) => {
        throw decisionError(err, words.org);
      });
      if (flags.json) io.stdout(json(done));
      else
        for (const r of done)
          io.stdout(`${verb === 'approve' ? 'approved' : 'denied'} ${r.id} (${clean(r.tokenName)} of ${clean(r.ownerId)})\n`);
      return 0;
    },
  });
}

/** `svc org requests`. */
export const orgRequests = orgGroup('requests', "list, approve or deny tokens' requests to reach an org", [
  requestsList,
  decide('approve', APPROVE_HELP, 'approve requests'),
  decide('deny', DENY_HELP, 'deny requests'),
]);
