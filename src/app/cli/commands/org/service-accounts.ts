/**
 * `svc org service-accounts create|list|get|update <org> [<name>]` and
 * `svc org service-accounts clients create|list|revoke <org> <name>` (W1, W2):
 * an org's machine identities, over the dev instance with the caller's credential.
 * @module
 */
import { ValidationError } from '../../../../errors';
import type { RoleName } from '../../../../core/vocabulary';
import type { MachineClientInfo, ServiceAccountInfo } from '../../../../service';
import type { PublicJwk } from '../../../../stores';
import { renameIssues } from '../../args';
import { clean, dateText, json, table } from '../../output';
import { readJwkFile } from '../../proof-key';
import { orgAction, orgGroup } from './action';

const BOOL = { type: 'boolean' } as const;
const JSON_FLAG = BOOL;
const FLAGS_HELP = `      --json                 print JSON
  -h, --help                 show this help`;
const help = (usage: string, text: string, options = '', example = ''): string =>
  `Usage: svc org service-accounts ${usage}\n\n${text}\n\nOptions:\n${options}${FLAGS_HELP}\n${example === '' ? '' : `\nExample:\n  ${example}\n`}`;

function accountsTable(rows: readonly ServiceAccountInfo[]): string {
  if (rows.length === 0) return 'no service accounts\n';
  return table(
    ['NAME', 'ID', 'ROLE', 'STATUS', 'CREATED BY', 'DESCRIPTION'],
    rows.map((a) => [a.name, a.id, a.role, a.disabled ? 'disabled' : 'active', clean(a.createdBy), clean(a.description ?? '-')]),
  );
}

function clientsTable(rows: readonly MachineClientInfo[]): string {
  if (rows.length === 0) return 'no clients\n';
  return table(
    ['CLIENT ID', 'METHOD', 'STATUS', 'CREATED', 'BY'],
    rows.map((c) => [c.clientId, c.method, c.status, dateText(c.createdAt), clean(c.createdBy)]),
  );
}

/** The one word after the org: the account's name. */
function nameOf(ids: readonly string[]): string {
  if (ids.length !== 1) throw new ValidationError([{ path: '', message: 'give one service account name after the org' }]);
  return ids[0] as string;
}

const ROLE_NAMES = ['owner', 'admin', 'editor', 'viewer'];
function roleFlag(value: string | undefined): RoleName | undefined {
  if (value === undefined) return undefined;
  if (!ROLE_NAMES.includes(value)) throw new ValidationError([{ path: '--role', message: 'must be one of owner, admin, editor, viewer' }]);
  return value as RoleName;
}

const RENAMES = { role: '--role', description: '--description', name: '<name>' };

const create = orgAction({
  name: 'create',
  summary: 'create a service account with a role on the org',
  help: help(
    'create <org> <name> --role <role> [--description <text>] [--json]',
    "Create a service account: a machine identity owned by the org, with one role\non it (never above your own). Its tokens ('svc token create --service-account\n<org>/<name>') outlive whoever made them. Needs org:admin on the org.",
    '      --role <role>          owner, admin, editor or viewer (required)\n      --description <text>   what it is for\n',
    'svc org service-accounts create acme ci-bot --role editor',
  ),
  flags: { role: { type: 'string', required: true }, description: { type: 'string' }, json: JSON_FLAG },
  ids: 'required',
  input: (f) => ({ role: roleFlag(f.role) as RoleName, description: f.description }),
  async run({ words, input, flags, dev, principal, io }) {
    const name = nameOf(words.ids);
    const made = await dev.auth
      .client(principal)
      .org(words.org)
      .serviceAccounts.create({ name, role: input.role, ...(input.description === undefined ? {} : { description: input.description }) })
      .catch((err: unknown) => {
        throw renameIssues(err, RENAMES);
      });
    io.stdout(flags.json ? json(made) : `created ${made.id} (${made.role})\n`);
    return 0;
  },
});

const list = orgAction({
  name: 'list',
  summary: "list the org's service accounts",
  help: help('list <org> [--json]', "List an org's service accounts: name, id, role, status. Needs org:admin on the org."),
  flags: { json: JSON_FLAG },
  ids: 'none',
  async run({ words, flags, dev, principal, io }) {
    const all = await dev.auth.client(principal).org(words.org).serviceAccounts.list();
    io.stdout(flags.json ? json(all) : accountsTable(all));
    return 0;
  },
});

const get = orgAction({
  name: 'get',
  summary: 'show one service account',
  help: help('get <org> <name> [--json]', 'Show one service account. Needs org:admin on the org.'),
  flags: { json: JSON_FLAG },
  ids: 'required',
  async run({ words, flags, dev, principal, io }) {
    const a = await dev.auth.client(principal).org(words.org).serviceAccounts.get(nameOf(words.ids));
    io.stdout(flags.json ? json(a) : accountsTable([a]));
    return 0;
  },
});

const update = orgAction({
  name: 'update',
  summary: "change a service account's role, description or status",
  help: help(
    'update <org> <name> [--role <role>] [--description <text>] [--disable | --enable] [--json]',
    'Change a service account. A lower role narrows every credential of the account\non its next request; --disable refuses them all until --enable. Needs\norg:admin on the org.',
    '      --role <role>          owner, admin, editor or viewer\n      --description <text>   what it is for\n      --disable              refuse every credential of the account\n      --enable               let them in again\n',
    'svc org service-accounts update acme ci-bot --disable',
  ),
  flags: { role: { type: 'string' }, description: { type: 'string' }, disable: BOOL, enable: BOOL, json: JSON_FLAG },
  ids: 'required',
  input(f) {
    if (f.disable && f.enable)
      throw new ValidationError([{ path: '--enable', message: 'cannot be used together with --disable: choose one' }]);
    const change: { role?: RoleName; description?: string; disabled?: boolean } = {};
    const role = roleFlag(f.role);
    if (role !== undefined) change.role = role;
    if (f.description !== undefined) change.description = f.description;
    if (f.disable || f.enable) change.disabled = f.disable;
    if (Object.keys(change).length === 0) throw new ValidationError([{ path: '', message: 'nothing to change: give at least one option' }]);
    return change;
  },
  async run({ words, input, flags, dev, principal, io }) {
    const a = await dev.auth
      .client(principal)
      .org(words.org)
      .serviceAccounts.update(nameOf(words.ids), input)
      .catch((err: unknown) => {
        throw renameIssues(err, RENAMES);
      });
    io.stdout(flags.json ? json(a) : `${a.id}: ${a.role}, ${a.disabled ? 'disabled' : 'active'}\n`);
    return 0;
  },
});

const clientCreate = orgAction({
  name: 'create',
  summary: 'register an OAuth client (client credentials) for the account',
  help: help(
    'clients create <org> <name> (--jwks <file> | --secret) [--json]',
    "Register a machine client of the account for OAuth client credentials at the\nserver 'svc serve' runs. --jwks: its public keys (private_key_jwt, recommended).\n--secret: a secret, printed once on stdout (client_secret_basic).",
    '      --jwks <file>          a public JWK or a JWK set {"keys": [...]}\n      --secret               make a secret instead\n',
    'svc org service-accounts clients create acme ci-bot --jwks ci.pub.jwk',
  ),
  flags: { jwks: { type: 'string' }, secret: BOOL, json: JSON_FLAG },
  ids: 'required',
  input(f) {
    if ((f.jwks === undefined) === !f.secret) throw new ValidationError([{ path: '--jwks', message: 'give --jwks <file> or --secret' }]);
    return f.jwks;
  },
  async run({ words, input: file, flags, dev, principal, io }) {
    let jwks: { keys: PublicJwk[] } | undefined;
    if (file !== undefined) {
      const read = (await readJwkFile(file, '--jwks')) as { keys?: unknown };
      jwks = { keys: (Array.isArray(read.keys) ? read.keys : [read]) as PublicJwk[] };
    }
    const made = await dev.auth
      .client(principal)
      .org(words.org)
      .serviceAccount(nameOf(words.ids))
      .clients.create(jwks === undefined ? { secret: true } : { jwks })
      .catch((err: unknown) => {
        throw renameIssues(err, { jwks: '--jwks' });
      });
    if (flags.json) io.stdout(json(made));
    else io.stdout(made.clientSecret === null ? `${made.clientId}\n` : `${made.clientId}\n${made.clientSecret}\n`);
    if (made.clientSecret !== null) io.stderr('svc: the client secret (second line) will not be shown again: store it now\n');
    return 0;
  },
});

const clientList = orgAction({
  name: 'list',
  summary: "list the account's clients",
  help: help('clients list <org> <name> [--json]', "List a service account's machine clients. Never a secret."),
  flags: { json: JSON_FLAG },
  ids: 'required',
  async run({ words, flags, dev, principal, io }) {
    const all = await dev.auth.client(principal).org(words.org).serviceAccount(nameOf(words.ids)).clients.list();
    io.stdout(flags.json ? json(all) : clientsTable(all));
    return 0;
  },
});

const clientRevoke = orgAction({
  name: 'revoke',
  summary: 'revoke one of its clients',
  help: help(
    'clients revoke <org> <name> --client <client-id> [--json]',
    'Revoke a machine client: the token endpoint refuses it from now on.',
    '      --client <client-id>   the client to revoke\n',
  ),
  flags: { client: { type: 'string', required: true }, json: JSON_FLAG },
  ids: 'required',
  async run({ words, flags, dev, principal, io }) {
    const c = await dev.auth.client(principal).org(words.org).serviceAccount(nameOf(words.ids)).clients.revoke(flags.client);
    io.stdout(flags.json ? json(c) : `revoked ${c.clientId}\n`);
    return 0;
  },
});

const clients = {
  ...orgGroup('service-accounts clients', "a service account's OAuth clients", [clientCreate, clientList, clientRevoke]),
  name: 'clients',
};

/** `svc org service-accounts`. */
export const orgServiceAccounts = orgGroup('service-accounts', "an org's service accounts and their OAuth clients", [
  create,
  list,
  get,
  update,
  clients,
]);
