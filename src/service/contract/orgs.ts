/**
 * What an org owner's governance face shows and takes: `client(p).org(name)`
 * (G1-G4). Every call needs `org:admin` on that org.
 * @module
 */
import type { Scope } from '../../core/scopes';
import type { OrgAccessStatus } from '../../stores';
import type { LastUse } from './tokens';
import type { ServiceAccountApi, ServiceAccountsApi } from './service-accounts';

// Defined beside TokenInfo, which shows it (contract/tokens.ts must not import this file: a cycle).
export type { OrgAccess } from './tokens';

/**
 * An org's policy as its owners see it. An org that never set one shows the
 * defaults, which change nothing (G1), with `updatedBy` and `updatedAt` `null`.
 *
 * @example
 * ```ts
 * const policy: OrgPolicy = await auth.client(owner).org('acme').policy.get();
 * if (policy.maxLifetime !== null) console.log(`tokens live at most ${policy.maxLifetime}`);
 * ```
 */
export interface OrgPolicy {
  /** The org, lowercase. */
  org: string;
  /** The longest a token reaching the org may live (`'90d'`), or `null` for no limit beyond the global year. */
  maxLifetime: string | null;
  /** Tokens of members need an owner's approval before they reach the org. */
  requireApproval: boolean;
  /** `false`: a token reaches the org only through scope entries that name it. */
  allowGlobal: boolean;
  /** A token without an `allowedIps` list does not reach the org. */
  requireAllowedIps: boolean;
  /** User ids the lifetime and approval rules do not apply to. */
  exempt: string[];
  /** Who changed it last, or `null` for the defaults. */
  updatedBy: string | null;
  /** When, or `null` for the defaults. */
  updatedAt: Date | null;
}

/**
 * Input of `org(name).policy.set`: the fields to change; the others keep their value.
 *
 * @example
 * ```ts
 * await auth.client(owner).org('acme').policy.set({ maxLifetime: '90d', requireApproval: true });
 * ```
 */
export interface OrgPolicyInput {
  /** `'<N>d'` or a number of days, 1 to 365; `null` removes the limit. */
  maxLifetime?: string | number | null;
  requireApproval?: boolean;
  allowGlobal?: boolean;
  requireAllowedIps?: boolean;
  /** At most 100 user ids; replaces the list. */
  exempt?: string[];
}

/**
 * A token waiting for (or given) an org's approval. Its `id` is the token's id:
 * a token has at most one request per org.
 *
 * @example
 * ```ts
 * const [req] = await auth.client(owner).org('acme').requests.list();
 * console.log(req.ownerId, req.tokenName, req.justification);
 * ```
 */
export interface OrgRequest {
  /** The request id (the token's id); `requests.approve` and `requests.deny` take it. */
  id: string;
  tokenId: string;
  tokenName: string;
  ownerId: string;
  /** The token's entries that touch the org, or `null` for full access. */
  scopes: Scope[] | null;
  justification: string | null;
  requestedAt: Date;
  status: OrgAccessStatus;
  reason: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
}

/**
 * A token that can reach the org, as the org's inventory shows it. Never a token value.
 *
 * @example
 * ```ts
 * for (const t of await auth.client(owner).org('acme').tokens.list({ status: 'active' })) {
 *   console.log(t.ownerId, t.name, t.access, t.lastUsed?.at);
 * }
 * ```
 */
export interface OrgTokenInfo {
  id: string;
  name: string;
  ownerId: string;
  /** The token's own status (T4). */
  status: 'active' | 'expired' | 'revoked';
  /** The entries that touch the org (the global tier included), or `null` for full access. */
  scopes: Scope[] | null;
  parentId: string | null;
  createdAt: Date;
  expiresAt: Date;
  lastUsed: LastUse | null;
  /** Its access to this org; `approved` when the org requires no approval and nothing was decided. */
  access: OrgAccessStatus;
  reason: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
}

/**
 * Filters of `org(name).tokens.list`; all optional, all must hold.
 *
 * @example
 * ```ts
 * const stale = await auth.client(owner).org('acme').tokens.list({ lastUsedBefore: new Date('2026-01-01') });
 * ```
 */
export interface OrgTokensFilter {
  /** Only this owner's tokens. */
  owner?: string;
  /** The token's own status. */
  status?: 'active' | 'expired' | 'revoked';
  /** Its access to the org. */
  access?: OrgAccessStatus;
  /** Never used, or last used before this time. */
  lastUsedBefore?: Date;
  /** Only tokens whose entries touching the org grant this permission. */
  permission?: string;
}

/**
 * An org's governance face, `auth.client(p).org(name)`. Every call needs
 * `org:admin` on the org (a session of an owner, or a PAT whose scopes hold it);
 * anyone else, and every component token, gets `ForbiddenError`.
 *
 * @example
 * ```ts
 * const acme = auth.client(owner).org('acme');
 * await acme.policy.set({ requireApproval: true });
 * const pending = await acme.requests.list();
 * await acme.requests.approve(pending.map((r) => r.id), { reason: 'ok for CI' });
 * ```
 */
export interface OrgApi {
  policy: {
    get(): Promise<OrgPolicy>;
    /** Change some fields; resolves to the whole policy. `ValidationError` lists every bad field. */
    set(input: OrgPolicyInput): Promise<OrgPolicy>;
  };
  requests: {
    /** Pending requests, or those of `status`. */
    list(options?: { status?: OrgAccessStatus }): Promise<OrgRequest[]>;
    /** Approve 1 to 100 pending requests; resolves to those changed. */
    approve(ids: string[], options?: { reason?: string }): Promise<OrgRequest[]>;
    /** Deny 1 to 100 pending requests; resolves to those changed. */
    deny(ids: string[], options?: { reason?: string }): Promise<OrgRequest[]>;
  };
  tokens: {
    list(filter?: OrgTokensFilter): Promise<OrgTokenInfo[]>;
    /** End 1 to 100 tokens' access to this org (their other orgs keep it); their children lose it too. */
    revoke(ids: string[], options?: { reason?: string }): Promise<OrgTokenInfo[]>;
  };
  /** The org's service accounts (W1): create, list, get, update. */
  serviceAccounts: ServiceAccountsApi;
  /** One service account's tokens and machine clients (W2). */
  serviceAccount(name: string): ServiceAccountApi;
}
