/**
 * `svc token create|list|get|revoke` (docs/cli.md, C1, C4): the SDK's
 * `client(principal).token.*` over the dev instance, with the caller's
 * credential (C2).
 * @module
 */
import { ForbiddenError, NotFoundError } from '../../../errors';
import type { Principal } from '../../../core/policy';
import type { CreateTokenInput } from '../../../service';
import { optional, parseFlags, required, type Flags } from '../args';
import { help, withHint, withInstance, type Command } from '../command';
import { signIn, type CredentialSource } from '../credential';
import { clean, expiringSoon, expiryText, json, tokenDetail, tokenTable, useColour } from '../output';
import { createIssues, daysFlag, flagWarning, readScopes, strayScopeHint } from './token-input';

const CREATE_HELP = `Usage: svc token create --name <name> [options]

Create a personal access token. The token is printed alone on stdout, once:
it cannot be shown again. Notices and warnings go to stderr, so
  T=$(svc token create -n ci --scope acme/web=repo:read)
captures just the token.

Options:
  -n, --name <name>                 token name: letters, digits, - and _ (required)
      --scope <scope>               repeatable: <org>/<repo>=<perms>, <org>=<perms> or <perms>;
                                    <perms> is comma-separated, or role:<owner|admin|editor|viewer>
      --scopes-json <json>          a JSON array of {resource?, permissions, allowedMatches?};
                                    not together with --scope
  -d, --description <text>          description
      --expires <N>d                lifetime in days, 1 to 365 (default 30d)
      --committer-identity <wref>   default committer: svc:<namespace>/users/Identity/<id>
      --json                        print {"token", ...details, "warnings"} as JSON
  -h, --help                        show this help

Without --scope or --scopes-json the token has the full access of its owner.

Examples:
  svc token create -n ci --scope acme/web=repo:read,repo:write
  svc token create -n docs --scopes-json '[{"resource":"acme/web","permissions":["repo:write"],"allowedMatches":["Doc/**"]}]'
`;

const LIST_HELP = `Usage: svc token list [--expiring <N>d] [--json]

List the tokens your credential manages, with status (active, expired,
revoked), when each expires and was last used (relative to now), and scopes.
A session sees all of its user's tokens; a token (SVC_TOKEN) sees only the
tokens created under it. When an active token expires within 7 days, a notice
on stderr says so.

Options:
      --expiring <N>d   only active tokens that expire within N days (1 to 365)
      --json            print an array of token details as JSON (with lastUsedAt)
  -h, --help            show this help

Examples:
  svc token list --expiring 7d
`;

const GET_HELP = `Usage: svc token get --name <name> [--json]

Show one token: name, description, scopes, status, creation date, expiry.
The token value itself is never shown again.

Options:
  -n, --name <name>   token name (required)
      --json          print the details as JSON
  -h, --help          show this help
`;

const REVOKE_HELP = `Usage: svc token revoke --name <name> [--json]

Revoke a token and every token created under it. It is refused on its next
request; the record stays visible (status revoked). To rotate: revoke, then
create a new token of the same name.

Options:
  -n, --name <name>   token name (required)
      --json          print the revoked token's details as JSON
  -h, --help          show this help
`;

const NAME = { type: 'string', short: 'n' } as const;
const JSON_FLAG = { type: 'boolean' } as const;

const CREATE_FLAGS = {
  name: NAME,
  scope: { type: 'string', multiple: true },
  'scopes-json': { type: 'string' },
  description: { type: 'string', short: 'd' },
  expires: { type: 'string' },
  'committer-identity': { type: 'string' },
  json: JSON_FLAG,
} as const;

/** `svc token create`. */
export const tokenCreate: Command = {
  name: 'create',
  summary: 'create a token (printed once)',
  help: CREATE_HELP,
  async run(args, io) {
    let flags: Flags;
    try {
      flags = parseFlags(args, CREATE_FLAGS);
    } catch (err) {
      throw strayScopeHint(err, args);
    }
    if (flags.help) return help(io, CREATE_HELP);
    const input: CreateTokenInput = { name: required(flags, 'name') };
    const scopes = readScopes(flags.scope as string[] | undefined, optional(flags, 'scopes-json'));
    if (scopes !== undefined) input.scopes = scopes.entries;
    const description = optional(flags, 'description');
    if (description !== undefined) input.description = description;
    const expires = optional(flags, 'expires');
    if (expires !== undefined) input.expiresIn = daysFlag('expires', expires);
    const identity = optional(flags, 'committer-identity');
    if (identity !== undefined) input.committerIdentity = identity;
    return withInstance(io, async (dev) => {
      const { principal } = await signIn(io, dev);
      const created = await dev.auth
        .client(principal)
        .token.create(input)
        .catch((err: unknown) => {
          throw createIssues(err, scopes?.source);
        });
      const { token, info } = created;
      const warnings = created.warnings.map((w) => flagWarning(w, scopes?.source.flag));
      for (const w of warnings) io.stderr(`svc: warning: ${clean(w)}\n`);
      io.stdout(flags.json === true ? json({ token, ...info, warnings }) : `${token}\n`);
      io.stderr(`svc: created token '${info.name}', expires ${info.expiresAt.toISOString()}; it will not be shown again, store it now\n`);
      return 0;
    });
  },
};

/**
 * A refusal of `get` or `revoke` of the very token in SVC_TOKEN gets a hint: the library says why
 * (a token manages only the tokens created under it), the hint says what to do instead.
 */
function aboutSelf(err: unknown, name: string, principal: Principal, source: CredentialSource, what: 'revoke' | 'get'): unknown {
  if (!(err instanceof ForbiddenError || err instanceof NotFoundError)) return err;
  if (source !== 'SVC_TOKEN' || principal.kind !== 'pat' || principal.tokenName !== name) return err;
  const todo =
    what === 'revoke'
      ? "revoke it with your session instead (unset SVC_TOKEN; 'svc auth login --user <id>' if you have none)"
      : "'svc auth status' shows it, and your session (unset SVC_TOKEN) can get it";
  return withHint(err, `'${clean(name)}' is the token in SVC_TOKEN: ${todo}`);
}

/** `svc token list`. */
export const tokenList: Command = {
  name: 'list',
  summary: 'list the tokens you manage',
  help: LIST_HELP,
  async run(args, io) {
    const flags = parseFlags(args, { json: JSON_FLAG, expiring: { type: 'string' } });
    if (flags.help) return help(io, LIST_HELP);
    const expiring = optional(flags, 'expiring');
    const expiringWithin = expiring === undefined ? undefined : daysFlag('expiring', expiring);
    return withInstance(io, async (dev) => {
      const { principal } = await signIn(io, dev);
      const api = dev.auth.client(principal).token;
      const infos = await (expiringWithin === undefined ? api.list() : api.list({ expiringWithin }));
      const nowMs = dev.now().getTime();
      io.stdout(flags.json === true ? json(infos) : tokenTable(infos, useColour(io), nowMs));
      const soon = expiringSoon(infos, nowMs);
      if (soon.length > 0) {
        const which = soon.map((t) => `${clean(t.name)} (${expiryText(t, nowMs)})`).join(', ');
        io.stderr(`svc: notice: ${soon.length === 1 ? '1 token expires' : `${soon.length} tokens expire`} within 7 days: ${which}\n`);
      }
      return 0;
    });
  },
};

/** `svc token get`. */
export const tokenGet: Command = {
  name: 'get',
  summary: 'show one token',
  help: GET_HELP,
  async run(args, io) {
    const flags = parseFlags(args, { name: NAME, json: JSON_FLAG });
    if (flags.help) return help(io, GET_HELP);
    const name = required(flags, 'name');
    return withInstance(io, async (dev) => {
      const { principal, source } = await signIn(io, dev);
      const info = await dev.auth
        .client(principal)
        .token.get(name)
        .catch((err: unknown) => {
          throw aboutSelf(err, name, principal, source, 'get');
        });
      io.stdout(flags.json === true ? json(info) : tokenDetail(info, useColour(io), dev.now().getTime()));
      return 0;
    });
  },
};

/** `svc token revoke`. */
export const tokenRevoke: Command = {
  name: 'revoke',
  summary: 'revoke a token and its descendants',
  help: REVOKE_HELP,
  async run(args, io) {
    const flags = parseFlags(args, { name: NAME, json: JSON_FLAG });
    if (flags.help) return help(io, REVOKE_HELP);
    const name = required(flags, 'name');
    return withInstance(io, async (dev) => {
      const { principal, source } = await signIn(io, dev);
      const info = await dev.auth
        .client(principal)
        .token.revoke(name)
        .catch((err: unknown) => {
          throw aboutSelf(err, name, principal, source, 'revoke');
        });
      io.stdout(flags.json === true ? json(info) : `revoked ${clean(info.name)} (and any token created under it)\n`);
      return 0;
    });
  },
};

/** The `token` group, in help order. */
export const tokenCommands: readonly Command[] = [tokenCreate, tokenList, tokenGet, tokenRevoke];
