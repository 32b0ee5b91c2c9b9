/**
 * What the orgs' policies do to a token being created (G2, G3): refuse what
 * can be known to break a policy now (only for orgs its entries name), and
 * open a request, or record the owner's own approval, where approval is
 * required. Pure: the caller reads the policies and the roles.
 * @module
 */
import { ValidationError, type IssueInput } from '../../errors';
import type { UserRoles } from '../../core/policy';
import type { Scope } from '../../core/scopes';
import type { OrgAccessEntry, TokenRecord } from '../../stores';
import { ipsMessage, lifetimeMessage, nearestEntry, orgRoleOf, type PolicyIndex } from './gates';

const DAY_SEC = 86_400;

/** What creation knows of the new token. */
export interface NewToken {
  readonly ownerId: string;
  readonly roles: UserRoles;
  /** Its own scopes (`null`: full access, or its parent's limits). */
  readonly scopes: readonly Scope[] | null;
  /** The chain creating it (nearest first), or `null` for a top-level token. */
  readonly chain: readonly TokenRecord[] | null;
  /** Its lifetime as it will be stored (after any clamp), in seconds. */
  readonly lifetimeSec: number;
  /** Its own address list. */
  readonly allowedIps: readonly string[] | null;
  readonly justification: string | null;
  /** Now, whole seconds. */
  readonly at: Date;
}

/** The orgs the token's entries name (its own, else those of the nearest scoped record it inherits). */
function namedOrgs(t: NewToken): string[] {
  const scopes = t.scopes ?? t.chain?.find((r) => r.scopes !== null)?.scopes ?? null;
  const out = new Set<string>();
  for (const s of scopes ?? []) if (s.resource !== undefined) out.add((s.resource.split('/')[0] as string).toLowerCase());
  return [...out];
}

/**
 * The `orgAccess` entries of a new token, and the orgs it asks to approve it;
 * a `ValidationError` listing every org whose policy it breaks (paths
 * `expiresIn` and `allowedIps`, messages naming the org, the limit and the fix).
 *
 * @example
 * ```ts
 * const { entries, requested } = orgAccessAtCreation(index, { ownerId: 'bob', roles, scopes, chain: null,
 *   lifetimeSec: 30 * 86400, allowedIps: null, justification: 'CI', at: new Date() });
 * ```
 */
export function orgAccessAtCreation(index: PolicyIndex, t: NewToken): { entries: OrgAccessEntry[]; requested: string[] } {
  const issues: IssueInput[] = [];
  const entries: OrgAccessEntry[] = [];
  const requested: string[] = [];
  for (const org of namedOrgs(t)) {
    const p = index.byOrg.get(org);
    if (p === undefined) continue;
    const exempt = p.exempt.includes(t.ownerId);
    if (!exempt && p.maxLifetimeDays !== null && t.lifetimeSec > p.maxLifetimeDays * DAY_SEC) {
      issues.push({
        path: 'expiresIn',
        message: lifetimeMessage(org, p.maxLifetimeDays, Math.ceil(t.lifetimeSec / DAY_SEC), 'would live'),
      });
    }
    if (p.requireAllowedIps && t.allowedIps === null && (t.chain ?? []).every((r) => r.allowedIps == null)) {
      issues.push({ path: 'allowedIps', message: ipsMessage(org, 'this') });
    }
    if (!p.requireApproval || exempt) continue;
    if (orgRoleOf(t.roles, org) === 'owner') {
      entries.push(
        Object.freeze({
          org,
          status: 'approved',
          justification: t.justification,
          requestedAt: null,
          reason: 'owner of the organization',
          decidedBy: t.ownerId,
          decidedAt: t.at,
        }),
      );
      continue;
    }
    // A child of an approved chain inherits its access and opens no request (G3).
    if (t.chain !== null && nearestEntry(t.chain, org)?.status === 'approved') continue;
    entries.push(
      Object.freeze({
        org,
        status: 'pending',
        justification: t.justification,
        requestedAt: t.at,
        reason: null,
        decidedBy: null,
        decidedAt: null,
      }),
    );
    requested.push(org);
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { entries, requested };
}

/**
 * A record's access as `TokenInfo.orgAccess` shows it: its own entries, then
 * for each org it has none of, the nearest ancestor's (what it inherits, G3);
 * a `denied` or `revoked` entry of any ancestor speaks over an approval.
 *
 * @example
 * ```ts
 * inheritedAccess(child, [parent, grandparent]); // [{ org: 'acme', status: 'approved', … }]
 * ```
 */
export function inheritedAccess(record: TokenRecord, ancestors: readonly TokenRecord[]): OrgAccessEntry[] {
  const chain = [record, ...ancestors];
  const orgs: string[] = [];
  for (const r of chain) for (const e of r.orgAccess ?? []) if (!orgs.includes(e.org)) orgs.push(e.org);
  return orgs.map((org) => {
    for (const r of chain) {
      const e = r.orgAccess?.find((x) => x.org === org);
      if (e !== undefined && (e.status === 'denied' || e.status === 'revoked')) return e;
    }
    return nearestEntry(chain, org) as OrgAccessEntry;
  });
}
