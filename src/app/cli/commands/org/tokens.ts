/**
 * `svc org tokens list|revoke <org>` (G3, G4): every token that can reach an
 * org, whoever owns it, and the end of some tokens' access to it.
 * @module
 */
import { ValidationError } from '../../../../errors';
import type { OrgTokenInfo, OrgTokensFilter } from '../../../../service';
import { renameIssues } from '../../args';
import { withHint } from '../../command';
import { clean, dateText, json, scopeText, statusText, table, useColour } from '../../output';
import { orgAction, orgGroup } from './action';
import { accessStatus } from './requests';

const LIST_HELP = `Usage: svc org tokens list <org> [filters] [--json]

List every personal access token (and token created under one) that can
reach an org, whoever owns it: id, name, owner, status, its access to the
org (pending, approved, denied, revoked), expiry, last use and from where,
and the scopes that touch the org. Never a token value. Needs org:admin on
the org.

Options:
      --owner <user>               only this user's tokens
      --status <status>            the token's status: active, expired or revoked
      --access <access>            its access to the org: pending, approved, denied or revoked
      --last-used-before <date>    never used, or last used before this date (2026-01-31 or ISO 8601)
      --permission <perm>          only tokens whose entries touching the org grant it (repo:write)
      --json                       print the tokens as JSON
  -h, --help                       show this help

Examples:
  svc org tokens list acme --access pending
  svc org tokens list acme --last-used-before 2026-01-01 --status active
`;

const REVOKE_HELP = `Usage: svc org tokens revoke <org> <id>... [--reason <text>] [--json]

End these tokens' access to an org (1 to 100 ids, from 'svc org tokens
list'; an id that starts with '-' goes after --). Each is refused in this org
from its next request, and so are the tokens created under it; their other
orgs keep their access (the token is not revoked). Needs org:admin on the org.

Options:
      --reason <text>   why (one line, at most 1024 characters); the token's owner sees it
      --json            print the tokens as JSON
  -h, --help            show this help

Example:
  svc org tokens revoke acme <id> --reason 'leaked in a build log'
`;

const TOKEN_STATUSES = ['active', 'expired', 'revoked'] as const;

function tokenStatus(value: string): NonNullable<OrgTokensFilter['status']> {
  const found = TOKEN_STATUSES.find((s) => s === value);
  if (found === undefined) throw new ValidationError([{ path: '--status', message: `must be one of ${TOKEN_STATUSES.join(', ')}` }]);
  return found;
}

function dateFlag(value: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new ValidationError([{ path: '--last-used-before', message: 'must be a date: 2026-01-31 or 2026-01-31T12:00:00Z' }]);
  }
  return date;
}

function tokensTable(rows: readonly OrgTokenInfo[], colour: boolean): string {
  if (rows.length === 0) return 'no tokens\n';
  return table(
    ['ID', 'NAME', 'OWNER', 'STATUS', 'ACCESS', 'EXPIRES', 'LAST USED', 'SCOPES'],
    rows.map((t) => [
      t.id,
      clean(t.name),
      clean(t.ownerId),
      statusText(t.status, colour),
      t.access,
      dateText(t.expiresAt),
      t.lastUsed === null ? 'never' : `${dateText(t.lastUsed.at)}${t.lastUsed.address == null ? '' : ` from ${clean(t.lastUsed.address)}`}`,
      scopeText(t.scopes),
    ]),
  );
}

const JSON_FLAG = { type: 'boolean' } as const;

const tokensList = orgAction({
  name: 'list',
  summary: 'list the tokens that can reach an org',
  help: LIST_HELP,
  flags: {
    owner: { type: 'string' },
    status: { type: 'string' },
    access: { type: 'string' },
    'last-used-before': { type: 'string' },
    permission: { type: 'string' },
    json: JSON_FLAG,
  },
  ids: 'none',
  input(f) {
    const filter: OrgTokensFilter = {};
    if (f.owner !== undefined) filter.owner = f.owner;
    if (f.status !== undefined) filter.status = tokenStatus(f.status);
    if (f.access !== undefined) filter.access = accessStatus(f.access, '--access');
    if (f['last-used-before'] !== undefined) filter.lastUsedBefore = dateFlag(f['last-used-before']);
    if (f.permission !== undefined) filter.permission = f.permission;
    return filter;
  },
  async run({ words, input, flags, dev, principal, io }) {
    const rows = await dev.auth
      .client(principal)
      .org(words.org)
      .tokens.list(input)
      .catch((err: unknown) => {
        throw renameIssues(err, { owner: '--owner', permission: '--permission', lastUsedBefore: '--last-used-before' });
      });
    io.stdout(flags.json ? json(rows) : tokensTable(rows, useColour(io)));
    return 0;
  },
});

const tokensRevoke = orgAction({
  name: 'revoke',
  summary: "end tokens' access to an org",
  help: REVOKE_HELP,
  flags: { reason: { type: 'string' }, json: JSON_FLAG },
  ids: 'required',
  async run({ words, flags, dev, principal, io }) {
    const done = await dev.auth
      .client(principal)
      .org(words.org)
      .tokens.revoke(words.ids, flags.reason === undefined ? {} : { reason: flags.reason })
      .catch((err: unknown) => {
        const renamed = renameIssues(err, { reason: '--reason', ids: 'ids' });
        throw withHint(renamed, `'svc org tokens list ${clean(words.org)}' lists the token ids`);
      });
    if (flags.json) io.stdout(json(done));
    else for (const t of done) io.stdout(`revoked ${t.id} (${clean(t.name)} of ${clean(t.ownerId)}) in ${words.org.toLowerCase()}\n`);
    return 0;
  },
});

/** `svc org tokens`. */
export const orgTokens = orgGroup('tokens', 'list the tokens that reach an org, or end their access', [tokensList, tokensRevoke]);
