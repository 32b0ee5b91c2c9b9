/**
 * `svc token create|list|get|revoke` (docs/cli.md, C1, C4): the SDK's
 * `client(principal).token.*` over the dev instance, with the caller's
 * credential (C2).
 * @module
 */
import { ForbiddenError, NotFoundError } from '../../../errors';
import type { Principal } from '../../../core/policy';
import type { CreateTokenInput, TokenApi } from '../../../service';
import { defineCommand, withHint, type Command } from '../command';
import type { CredentialSource } from '../credential';
import { clean, expiringSoon, expiryText, json, tokenDetail, tokenTable, useColour } from '../output';
import { accountFlag, createIssues, daysFlag, flagWarning, readScopes, strayScopeHint, tokensOf } from './token-input';
import { keyFile, newBindKey, readPublicKeyFile } from '../proof-key';
import type { DevInstance } from '../../dev';
import type { CliIO } from '../output';
import type { JWK } from '../../../tokens';

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
      --justification <text>        why you need it, for the owners of an org that approves
                                    tokens (shown in 'svc org requests list')
      --allow-ip <cidr>             repeatable: only requests from these addresses or ranges
                                    (203.0.113.0/24, 2001:db8::/32, 192.0.2.7) may use it;
                                    elsewhere it is refused with 403. Under a token that has
                                    a list, each range must lie inside one of its ranges
      --bind-key [<file>]           bind the token to a key: every use then needs a DPoP
                                    proof signed by it (the token alone is refused). Alone:
                                    make an Ed25519 key pair and keep the private key in
                                    SVC_HOME/keys/<name>.jwk (mode 0600). With a file: the
                                    public JWK of a key you hold (a private key is refused)
      --json                        print {"token", ...details, "warnings"} as JSON
      --service-account <org>/<name>   a service account's tokens instead of yours (needs
                                    org:admin on the org)
  -h, --help                        show this help

Without --scope or --scopes-json the token has the full access of its owner.
A token created with a bound SVC_TOKEN is bound to the same key (or to --bind-key's).
svc commands sign proofs for a bound SVC_TOKEN with the key SVC_TOKEN_KEY names (a
private JWK file), else the one --bind-key kept; 'svc proof' makes one for curl.

Examples:
  svc token create -n ci --scope acme/web=repo:read,repo:write
  svc token create -n docs --scopes-json '[{"resource":"acme/web","permissions":["repo:write"],"allowedMatches":["Doc/**"]}]'
  svc token create -n deploy --scope acme/web=repo:read --allow-ip 203.0.113.0/24 --allow-ip 2001:db8::/32
  svc token create -n laptop --scope acme/web=repo:read --bind-key
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
      --service-account <org>/<name>
                        a service account's tokens (needs org:admin on the org)
  -h, --help            show this help

Examples:
  svc token list --expiring 7d
`;

const GET_HELP = `Usage: svc token get --name <name> [--json]

Show one token: name, description, scopes, status, creation date, expiry,
the addresses it may be used from, when it was last used and from where (the
last few distinct addresses, with their user agents), the key it is bound to
(if any), and its access to each
org that governs its tokens (pending, approved, denied or revoked, with the
owner's reason). The token value itself is never shown again.

Options:
  -n, --name <name>   token name (required)
      --json          print the details as JSON
      --service-account <org>/<name>
                      a service account's token (needs org:admin on the org)
  -h, --help          show this help
`;

const REVOKE_HELP = `Usage: svc token revoke --name <name> [--json]

Revoke a token and every token created under it. It is refused on its next
request; the record stays visible (status revoked). To rotate: revoke, then
create a new token of the same name.

Options:
  -n, --name <name>   token name (required)
      --json          print the revoked token's details as JSON
      --service-account <org>/<name>
                      a service account's token (needs org:admin on the org)
  -h, --help          show this help
`;

const NAME = { type: 'string', short: 'n', required: true } as const;
const JSON_FLAG = { type: 'boolean' } as const;
const ACCOUNT = { type: 'string' } as const;

/** `svc token create`. */
export const tokenCreate = defineCommand({
  name: 'create',
  summary: 'create a token (printed once)',
  help: CREATE_HELP,
  flags: {
    name: NAME,
    scope: { type: 'string', multiple: true },
    'scopes-json': { type: 'string' },
    description: { type: 'string', short: 'd' },
    expires: { type: 'string' },
    'committer-identity': { type: 'string' },
    'allow-ip': { type: 'string', multiple: true },
    justification: { type: 'string' },
    'bind-key': { type: 'string', optionalValue: true },
    json: JSON_FLAG,
    'service-account': ACCOUNT,
  },
  needs: 'signed-in',
  parseError: strayScopeHint,
  input(flags) {
    const input: CreateTokenInput = { name: flags.name };
    const scopes = readScopes(flags.scope, flags['scopes-json']);
    if (scopes !== undefined) input.scopes = scopes.entries;
    if (flags.description !== undefined) input.description = flags.description;
    if (flags.expires !== undefined) input.expiresIn = daysFlag('expires', flags.expires);
    if (flags['committer-identity'] !== undefined) input.committerIdentity = flags['committer-identity'];
    if (flags['allow-ip'] !== undefined) input.allowedIps = [...flags['allow-ip']];
    if (flags.justification !== undefined) input.justification = flags.justification;
    return { input, source: scopes?.source, bindKey: flags['bind-key'], account: accountFlag(flags['service-account']) };
  },
  async run({ flags, input: { input, source, bindKey, account }, dev, principal, io }) {
    const api = tokensOf(dev, principal, account);
    // '' is --bind-key alone: a new key pair, its private half kept once the token exists.
    const made = bindKey === '' ? await newBindKey() : undefined;
    if (made !== undefined) input.bindKey = made.publicJwk;
    else if (bindKey !== undefined) input.bindKey = await readPublicKeyFile(bindKey);
    const created = await api.create(input).catch((err: unknown) => {
      throw createIssues(err, source);
    });
    const { token, info } = created;
    if (made !== undefined) await keepKey(dev, api, info.name, made.privateJwk, io);
    const warnings = created.warnings.map((w) => flagWarning(w, source?.flag));
    for (const w of warnings) io.stderr(`svc: warning: ${clean(w)}\n`);
    io.stdout(flags.json ? json({ token, ...info, warnings }) : `${token}\n`);
    io.stderr(`svc: created token '${info.name}', expires ${info.expiresAt.toISOString()}; it will not be shown again, store it now\n`);
    for (const a of info.orgAccess.filter((e) => e.status === 'pending')) {
      io.stderr(
        `svc: notice: '${a.org}' requires an owner's approval: this token is refused there until one approves it (its id is ${info.id})\n`,
      );
    }
    return 0;
  },
});

/**
 * Keep the private key of a new bound token, written only after the token exists so that a refused
 * create never replaces the key of a live token of that name. A key that cannot be kept leaves a
 * token nobody can use: it is revoked at once, and the failure reported.
 */
async function keepKey(dev: DevInstance, api: TokenApi, name: string, privateJwk: JWK, io: CliIO): Promise<void> {
  const file = keyFile(dev.home, name);
  try {
    await file.update(() => privateJwk);
  } catch (err) {
    await api.revoke(name).catch(() => undefined);
    throw err;
  }
  io.stderr(`svc: the token is bound to a new key; its private key is in ${file.path} (mode 0600)\n`);
}

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
export const tokenList = defineCommand({
  name: 'list',
  summary: 'list the tokens you manage',
  help: LIST_HELP,
  flags: { json: JSON_FLAG, expiring: { type: 'string' }, 'service-account': ACCOUNT },
  needs: 'signed-in',
  input: (f) => ({
    expiringWithin: f.expiring === undefined ? undefined : daysFlag('expiring', f.expiring),
    account: accountFlag(f['service-account']),
  }),
  async run({ flags, input: { expiringWithin, account }, dev, principal, io }) {
    const api = tokensOf(dev, principal, account);
    const infos = await (expiringWithin === undefined ? api.list() : api.list({ expiringWithin }));
    const nowMs = dev.now().getTime();
    io.stdout(flags.json ? json(infos) : tokenTable(infos, useColour(io), nowMs));
    const soon = expiringSoon(infos, nowMs);
    if (soon.length > 0) {
      const which = soon.map((t) => `${clean(t.name)} (${expiryText(t, nowMs)})`).join(', ');
      io.stderr(`svc: notice: ${soon.length === 1 ? '1 token expires' : `${soon.length} tokens expire`} within 7 days: ${which}\n`);
    }
    return 0;
  },
});

/** `svc token get`. */
export const tokenGet = defineCommand({
  name: 'get',
  summary: 'show one token',
  help: GET_HELP,
  flags: { name: NAME, json: JSON_FLAG, 'service-account': ACCOUNT },
  needs: 'signed-in',
  input: (f) => accountFlag(f['service-account']),
  async run({ flags: { name, json: asJson }, input: account, dev, principal, source, io }) {
    const info = await tokensOf(dev, principal, account)
      .get(name)
      .catch((err: unknown) => {
        throw aboutSelf(err, name, principal, source, 'get');
      });
    io.stdout(asJson ? json(info) : tokenDetail(info, useColour(io), dev.now().getTime()));
    return 0;
  },
});

/** `svc token revoke`. */
export const tokenRevoke = defineCommand({
  name: 'revoke',
  summary: 'revoke a token and its descendants',
  help: REVOKE_HELP,
  flags: { name: NAME, json: JSON_FLAG, 'service-account': ACCOUNT },
  needs: 'signed-in',
  input: (f) => accountFlag(f['service-account']),
  async run({ flags: { name, json: asJson }, input: account, dev, principal, source, io }) {
    const info = await tokensOf(dev, principal, account)
      .revoke(name)
      .catch((err: unknown) => {
        throw aboutSelf(err, name, principal, source, 'revoke');
      });
    io.stdout(asJson ? json(info) : `revoked ${clean(info.name)} (and any token created under it)\n`);
    return 0;
  },
});

/** The `token` group, in help order. */
export const tokenCommands: readonly Command[] = [tokenCreate, tokenList, tokenGet, tokenRevoke];
