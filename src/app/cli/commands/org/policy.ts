/**
 * `svc org policy get|set <org>` (G1): an org's rules for the tokens that reach it.
 * @module
 */
import { ValidationError } from '../../../../errors';
import type { OrgPolicy, OrgPolicyInput } from '../../../../service';
import { renameIssues } from '../../args';
import { clean, dateText, json } from '../../output';
import { orgAction, orgGroup } from './action';

const GET_HELP = `Usage: svc org policy get <org> [--json]

Show an org's policy for personal access tokens: the longest lifetime, whether
members' tokens need an owner's approval, whether full-access and global
tokens reach it, whether tokens need an address list, who is exempt, and who
changed it last. An org that never set one shows the defaults (no rule). Needs
org:admin on the org (its owners hold it).

Options:
      --json   print the policy as JSON
  -h, --help   show this help

Example:
  svc org policy get acme
`;

const SET_HELP = `Usage: svc org policy set <org> [options]

Change an org's policy; the fields not given keep their value. A change holds
from the next request of every token: tokens against it are refused in this
org (403, reason policy, with what to do), never revoked. Needs org:admin on
the org.

Options:
      --max-lifetime <N>d|none     tokens reaching the org live at most N days (1 to 365);
                                   none removes the limit
      --require-approval           members' tokens need an owner's approval ('svc org requests')
      --no-require-approval        they do not
      --allow-global               full-access and global-scope tokens reach the org (default)
      --no-global                  only scope entries naming the org (acme or acme/<repo>) reach it
      --require-allowed-ips        a token without --allow-ip does not reach the org
      --no-require-allowed-ips     it does
      --exempt <user>              repeatable: users the lifetime and approval rules skip
                                   (replaces the list)
      --no-exempt                  empty the exempt list
      --json                       print the whole policy as JSON
  -h, --help                       show this help

Examples:
  svc org policy set acme --max-lifetime 90d --require-approval
  svc org policy set acme --no-global --exempt ci-bot
`;

const JSON_FLAG = { type: 'boolean' } as const;
const BOOL = { type: 'boolean' } as const;

/**
 * The policy as `field  value` lines.
 *
 * @example
 * ```ts
 * io.stdout(policyText(await acme.policy.get()));
 * ```
 */
function policyText(p: OrgPolicy): string {
  const rows: [string, string][] = [
    ['org', p.org],
    ['max lifetime', p.maxLifetime ?? 'none (a year at most, as every token)'],
    ['approval', p.requireApproval ? "required: members' tokens wait for an owner" : 'not required'],
    ['global', p.allowGlobal ? 'allowed: full-access and global tokens reach the org' : 'refused: only entries naming the org reach it'],
    ['allowed ips', p.requireAllowedIps ? 'required: a token needs --allow-ip' : 'not required'],
    ['exempt', p.exempt.length === 0 ? '-' : p.exempt.map(clean).join(', ')],
    ['updated', p.updatedAt === null ? '- (defaults)' : `${dateText(p.updatedAt)} by ${clean(p.updatedBy ?? '-')}`],
  ];
  return rows.map(([k, v]) => `${k.padEnd(14)}${v}`).join('\n') + '\n';
}

/** A pair of opposite switches as one optional boolean; both given is a usage error. */
function pair(on: boolean, off: boolean, onName: string, offName: string): boolean | undefined {
  if (on && off) throw new ValidationError([{ path: `--${offName}`, message: `cannot be used together with --${onName}: choose one` }]);
  return on ? true : off ? false : undefined;
}

const policyGet = orgAction({
  name: 'get',
  summary: "show an org's policy",
  help: GET_HELP,
  flags: { json: JSON_FLAG },
  ids: 'none',
  async run({ words, flags, dev, principal, io }) {
    const policy = await dev.auth.client(principal).org(words.org).policy.get();
    io.stdout(flags.json ? json(policy) : policyText(policy));
    return 0;
  },
});

const policySet = orgAction({
  name: 'set',
  summary: "change an org's policy",
  help: SET_HELP,
  flags: {
    'max-lifetime': { type: 'string' },
    'require-approval': BOOL,
    'no-require-approval': BOOL,
    'allow-global': BOOL,
    'no-global': BOOL,
    'require-allowed-ips': BOOL,
    'no-require-allowed-ips': BOOL,
    exempt: { type: 'string', multiple: true },
    'no-exempt': BOOL,
    json: JSON_FLAG,
  },
  ids: 'none',
  input(f) {
    const input: OrgPolicyInput = {};
    const lifetime = f['max-lifetime'];
    if (lifetime !== undefined) input.maxLifetime = lifetime === 'none' ? null : lifetime;
    const approval = pair(f['require-approval'], f['no-require-approval'], 'require-approval', 'no-require-approval');
    if (approval !== undefined) input.requireApproval = approval;
    const global = pair(f['allow-global'], f['no-global'], 'allow-global', 'no-global');
    if (global !== undefined) input.allowGlobal = global;
    const ips = pair(f['require-allowed-ips'], f['no-require-allowed-ips'], 'require-allowed-ips', 'no-require-allowed-ips');
    if (ips !== undefined) input.requireAllowedIps = ips;
    if (f.exempt !== undefined && f['no-exempt']) {
      throw new ValidationError([{ path: '--no-exempt', message: 'cannot be used together with --exempt: choose one' }]);
    }
    if (f.exempt !== undefined) input.exempt = [...f.exempt];
    if (f['no-exempt']) input.exempt = [];
    if (Object.keys(input).length === 0) throw new ValidationError([{ path: '', message: 'nothing to change: give at least one option' }]);
    return input;
  },
  async run({ words, input, flags, dev, principal, io }) {
    const policy = await dev.auth
      .client(principal)
      .org(words.org)
      .policy.set(input)
      .catch((err: unknown) => {
        throw renameIssues(err, {
          maxLifetime: '--max-lifetime',
          exempt: '--exempt',
          requireApproval: '--require-approval',
          allowGlobal: '--allow-global',
          requireAllowedIps: '--require-allowed-ips',
        });
      });
    io.stdout(flags.json ? json(policy) : policyText(policy));
    return 0;
  },
});

/** `svc org policy`. */
export const orgPolicy = orgGroup('policy', "show or change an org's token policy", [policyGet, policySet]);
