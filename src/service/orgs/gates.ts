/**
 * What the orgs' policies do to one PAT chain at use (G2, G3): pure, no I/O.
 * `authenticate` hands the result to the grant (`GrantInput.orgGates`), so a
 * refusal is decided once per compiled grant and `authorize` stays a lookup.
 * @module
 */
import type { OrgGate, UserRoles } from '../../core/policy';
import type { OrgAccessEntry, OrgPolicyRecord, OrgPolicySet, TokenRecord } from '../../stores';

const DAY_SEC = 86_400;

/**
 * The policies of one {@link OrgPolicySet} that change anything (a policy left
 * at the defaults gates nothing, G1), with the version they came from.
 *
 * @example
 * ```ts
 * const index = policyIndex(await store.readPolicies(), null);
 * index.active.length; // 0 when no org restricts anything
 * ```
 */
export interface PolicyIndex {
  readonly version: string;
  readonly active: readonly OrgPolicyRecord[];
  /** Every stored policy by org (lowercase), the defaults included. */
  readonly byOrg: ReadonlyMap<string, OrgPolicyRecord>;
}

/** Does a policy restrict anything at use? */
function restricts(p: OrgPolicyRecord): boolean {
  return p.maxLifetimeDays !== null || p.requireApproval || !p.allowGlobal || p.requireAllowedIps;
}

/**
 * The index of `set`: `previous` itself while the version has not moved (the
 * derived map is built once per policy change, not per request).
 *
 * @example
 * ```ts
 * let index: PolicyIndex | null = null;
 * index = policyIndex(set, index); // built
 * index = policyIndex(set, index); // the same object
 * ```
 */
export function policyIndex(set: OrgPolicySet, previous: PolicyIndex | null): PolicyIndex {
  if (previous !== null && previous.version === set.version) return previous;
  const byOrg = new Map<string, OrgPolicyRecord>();
  for (const p of set.policies) byOrg.set(p.org.toLowerCase(), p);
  return Object.freeze({ version: set.version, active: Object.freeze([...byOrg.values()].filter(restricts)), byOrg });
}

/**
 * The user's org role in `org`, names compared case-insensitively (S7).
 *
 * @example
 * ```ts
 * orgRoleOf({ orgs: { Acme: 'owner' } }, 'acme'); // 'owner'
 * ```
 */
export function orgRoleOf(roles: UserRoles, org: string): string | undefined {
  // Bad role data is refused when the grant is built; here it only must not throw.
  const orgs: unknown = typeof roles === 'object' && roles !== null ? roles.orgs : undefined;
  if (typeof orgs !== 'object' || orgs === null) return undefined;
  for (const k of Object.keys(orgs)) if (k.toLowerCase() === org) return (orgs as Record<string, string>)[k];
  return undefined;
}

/**
 * The nearest entry for `org` in a chain (nearest record first): the one that
 * speaks for the chain (a child without one inherits its parent's, G3).
 *
 * @example
 * ```ts
 * nearestEntry(chain, 'acme')?.status; // 'approved'
 * ```
 */
export function nearestEntry(chain: readonly TokenRecord[], org: string): OrgAccessEntry | undefined {
  for (const r of chain) {
    const e = r.orgAccess?.find((x) => x.org === org);
    if (e !== undefined) return e;
  }
  return undefined;
}

/** A lifetime in whole days, rounded up (a 90-day token plus a second is 91 days). */
function daysOf(r: TokenRecord): number {
  return Math.ceil((r.expiresAt.getTime() - r.createdAt.getTime()) / 1000 / DAY_SEC);
}

/**
 * The lifetime message (G2), shared with creation.
 *
 * @example
 * ```ts
 * lifetimeMessage('acme', 90, 365, 'lives'); // "The organization 'acme' allows tokens that live at most 90 days; this one lives 365 days. ..."
 * ```
 */
export function lifetimeMessage(org: string, maxDays: number, days: number, verb: 'lives' | 'would live'): string {
  const fix = verb === 'lives' ? 'Create a new token' : 'Create it';
  return `The organization '${org}' allows tokens that live at most ${maxDays} days; this one ${verb} ${days} days. ${fix} with --expires ${maxDays}d or less.`;
}

/**
 * The address-list message (G2), shared with creation.
 *
 * @example
 * ```ts
 * ipsMessage('acme', 'new');
 * ```
 */
export function ipsMessage(org: string, fix: 'new' | 'this'): string {
  const how = fix === 'new' ? 'Create a new token' : 'Create it';
  return `The organization '${org}' admits only tokens limited to a list of addresses; this one has none. ${how} with --allowed-ip <address or range>.`;
}

/**
 * A `denied` or `revoked` entry for `org` anywhere in the chain blocks it,
 * whether or not the org has a policy now (an owner may decide without one).
 */
function decidedAgainst(chain: readonly TokenRecord[], org: string): string | null {
  for (const r of chain) {
    const e = r.orgAccess?.find((x) => x.org === org);
    if (e?.status === 'revoked')
      return `The organization '${org}' revoked this token's access to it. Create a new token and ask an owner of '${org}' to approve it.`;
    if (e?.status === 'denied')
      return `The organization '${org}' denied this token (its id is ${r.id}). Create a new token and ask an owner of '${org}' to approve it.`;
  }
  return null;
}

/** Why one policy blocks one chain, or `null`. */
function blockedBy(p: OrgPolicyRecord, chain: readonly TokenRecord[], roles: UserRoles): string | null {
  const org = p.org.toLowerCase();
  const head = chain[0] as TokenRecord;
  const decided = decidedAgainst(chain, org);
  if (decided !== null) return decided;
  const exempt = p.exempt.includes(head.ownerId);
  if (!exempt && p.maxLifetimeDays !== null) {
    for (const r of chain) {
      if (r.kind !== 'pat') continue;
      if (r.expiresAt.getTime() - r.createdAt.getTime() > p.maxLifetimeDays * DAY_SEC * 1000) {
        return lifetimeMessage(org, p.maxLifetimeDays, daysOf(r), 'lives');
      }
    }
  }
  if (p.requireAllowedIps && chain.every((r) => r.allowedIps == null)) return ipsMessage(org, 'new');
  if (p.requireApproval && !exempt && orgRoleOf(roles, org) !== 'owner') {
    const e = nearestEntry(chain, org);
    if (e === undefined) {
      return `The organization '${org}' requires approval of tokens, and this one has none. Ask an owner of '${org}' to approve it (its id is ${head.id}) or create a new token.`;
    }
    if (e.status !== 'approved') {
      return `The organization '${org}' has not approved this token yet. Ask an owner of '${org}' to approve it (its id is ${head.id}).`;
    }
  }
  return null;
}

/**
 * The gates of a PAT chain (nearest record first) under the active policies
 * and the owner's roles read now: one per org whose policy refuses the chain
 * there, or that denied or revoked it; `null` when none does. Frozen.
 *
 * @example
 * ```ts
 * const gates = gatesOf(index.active, chain, roles);
 * createGrant({ roles, layers, ...(gates === null ? {} : { orgGates: gates }) });
 * ```
 */
export function gatesOf(
  policies: readonly OrgPolicyRecord[],
  chain: readonly TokenRecord[],
  roles: UserRoles,
): Readonly<Record<string, OrgGate>> | null {
  let out: Record<string, OrgGate> | null = null;
  for (const p of policies) {
    const blocked = blockedBy(p, chain, roles);
    const gate: OrgGate | null =
      blocked !== null
        ? { blocked }
        : p.allowGlobal
          ? null
          : {
              scopedOnly: `The organization '${p.org}' admits only tokens whose scopes name it. Create a token with --scope ${p.org}=<permissions> or --scope ${p.org}/<repo>=<permissions>.`,
            };
    if (gate === null) continue;
    out ??= Object.create(null) as Record<string, OrgGate>;
    out[p.org.toLowerCase()] = Object.freeze(gate);
  }
  // Orgs without a restricting policy that denied or revoked this chain.
  for (const r of chain) {
    for (const e of r.orgAccess ?? []) {
      if ((e.status !== 'denied' && e.status !== 'revoked') || (out !== null && e.org in out)) continue;
      out ??= Object.create(null) as Record<string, OrgGate>;
      out[e.org] = Object.freeze({ blocked: decidedAgainst(chain, e.org) as string });
    }
  }
  return out === null ? null : Object.freeze(out);
}

/**
 * Do two results of {@link gatesOf} say the same? (The grant cache reuses a
 * grant only for equal gates.)
 *
 * @example
 * ```ts
 * sameGates(null, null); // true
 * ```
 */
export function sameGates(a: Readonly<Record<string, OrgGate>> | null, b: Readonly<Record<string, OrgGate>> | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    const x = a[k] as OrgGate;
    const y = b[k];
    if (y === undefined) return false;
    if ('blocked' in x ? !('blocked' in y) || x.blocked !== y.blocked : !('scopedOnly' in y) || x.scopedOnly !== y.scopedOnly) return false;
  }
  return true;
}

/**
 * Does any record of the chain carry an entry at all? (Without one and
 * without a restricting policy there is nothing to gate: the common case
 * costs one look per record.)
 *
 * @example
 * ```ts
 * hasEntries([record]); // false for a token no org ever decided about
 * ```
 */
export function hasEntries(chain: readonly TokenRecord[]): boolean {
  for (const r of chain) if (r.orgAccess !== undefined && r.orgAccess.length > 0) return true;
  return false;
}
