/**
 * What an org's owners see of its policy and of the tokens that reach it:
 * pure mappings from store records to the views of src/service/contract/orgs.ts.
 * @module
 */
import type { Scope } from '../../core/scopes';
import type { OrgAccessEntry, OrgAccessStatus, OrgPolicyRecord, TokenRecord } from '../../stores';
import type { OrgPolicy, OrgRequest, OrgTokenInfo } from '../contract';
import type { LastUse } from '../contract';

/**
 * The policy view of `org` (the defaults when it never set one, G1).
 *
 * @example
 * ```ts
 * toPolicy('acme', undefined).maxLifetime; // null
 * ```
 */
export function toPolicy(org: string, rec: OrgPolicyRecord | undefined): OrgPolicy {
  if (rec === undefined) {
    return {
      org,
      maxLifetime: null,
      requireApproval: false,
      allowGlobal: true,
      requireAllowedIps: false,
      exempt: [],
      updatedBy: null,
      updatedAt: null,
    };
  }
  return {
    org,
    maxLifetime: rec.maxLifetimeDays === null ? null : `${rec.maxLifetimeDays}d`,
    requireApproval: rec.requireApproval,
    allowGlobal: rec.allowGlobal,
    requireAllowedIps: rec.requireAllowedIps,
    exempt: [...rec.exempt],
    updatedBy: rec.updatedBy,
    updatedAt: new Date(rec.updatedAt.getTime()),
  };
}

/**
 * Does a scope entry name `org` (`org` or `org/<repo>`)?
 *
 * @example
 * ```ts
 * namesOrg({ resource: 'acme/web', permissions: ['repo:read'] }, 'acme'); // true
 * ```
 */
export function namesOrg(s: Scope, org: string): boolean {
  if (s.resource === undefined) return false;
  const r = s.resource.toLowerCase();
  return r === org || r.startsWith(`${org}/`);
}

/**
 * The entries of a record that touch `org` (naming it, or global), or `null` for full access.
 *
 * @example
 * ```ts
 * touching(record, 'acme'); // [{ resource: 'acme/web', permissions: ['repo:read'] }]
 * ```
 */
export function touching(r: TokenRecord, org: string): Scope[] | null {
  if (r.scopes === null) return null;
  return r.scopes.filter((s) => s.resource === undefined || namesOrg(s, org)).map((s) => ({ ...s }));
}

/** The record's own entry for `org`. */
export function ownEntry(r: TokenRecord, org: string): OrgAccessEntry | undefined {
  return r.orgAccess?.find((e) => e.org === org);
}

/**
 * The entry that speaks for a record's access to `org`: a `denied` or
 * `revoked` one anywhere up its chain, else the nearest (G3). `byId` holds the
 * records the ancestors are looked up in.
 *
 * @example
 * ```ts
 * effectiveEntry(record, 'acme', new Map(records.map((r) => [r.id, r])));
 * ```
 */
export function effectiveEntry(r: TokenRecord, org: string, byId: ReadonlyMap<string, TokenRecord>): OrgAccessEntry | undefined {
  let nearest: OrgAccessEntry | undefined;
  const seen = new Set<string>();
  for (
    let at: TokenRecord | undefined = r;
    at !== undefined && !seen.has(at.id);
    at = at.parentId === null ? undefined : byId.get(at.parentId)
  ) {
    seen.add(at.id);
    const e = ownEntry(at, org);
    if (e === undefined) continue;
    if (e.status === 'denied' || e.status === 'revoked') return e;
    nearest ??= e;
  }
  return nearest;
}

function copyDate(d: Date | null): Date | null {
  return d === null ? null : new Date(d.getTime());
}

/**
 * The request view of a record's own entry for `org`.
 *
 * @example
 * ```ts
 * toRequest(record, ownEntry(record, 'acme')!, 'acme').status; // 'pending'
 * ```
 */
export function toRequest(r: TokenRecord, e: OrgAccessEntry, org: string): OrgRequest {
  return {
    id: r.id,
    tokenId: r.id,
    tokenName: r.name,
    ownerId: r.ownerId,
    scopes: touching(r, org),
    justification: e.justification,
    requestedAt: new Date((e.requestedAt ?? e.decidedAt ?? r.createdAt).getTime()),
    status: e.status,
    reason: e.reason,
    decidedBy: e.decidedBy,
    decidedAt: copyDate(e.decidedAt),
  };
}

function lastUseOf(r: TokenRecord): LastUse | null {
  const at = r.lastUsedAt;
  if (!(at instanceof Date)) return null;
  const newest = r.usedFrom?.[0];
  const same = newest !== undefined && newest.at.getTime() === at.getTime();
  return { at: new Date(at.getTime()), address: same ? newest.address : null, userAgent: same ? newest.userAgent : null };
}

/**
 * The inventory view of a record in `org`. Without an entry, its access is
 * `approved`, or `pending` when the org requires approval (it needs one).
 *
 * @example
 * ```ts
 * toOrgToken(record, 'acme', undefined, false, Date.now()).access; // 'approved'
 * ```
 */
export function toOrgToken(
  r: TokenRecord,
  org: string,
  e: OrgAccessEntry | undefined,
  approvalRequired: boolean,
  nowMs: number,
): OrgTokenInfo {
  const access: OrgAccessStatus = e?.status ?? (approvalRequired ? 'pending' : 'approved');
  return {
    id: r.id,
    name: r.name,
    ownerId: r.ownerId,
    status: r.revokedAt !== null ? 'revoked' : nowMs >= r.expiresAt.getTime() ? 'expired' : 'active',
    scopes: touching(r, org),
    parentId: r.parentId,
    createdAt: new Date(r.createdAt.getTime()),
    expiresAt: new Date(r.expiresAt.getTime()),
    lastUsed: lastUseOf(r),
    access,
    reason: e?.reason ?? null,
    decidedBy: e?.decidedBy ?? null,
    decidedAt: copyDate(e?.decidedAt ?? null),
  };
}
