/**
 * What a token store keeps for organizations that govern the tokens reaching
 * them (G1-G4): each org's policy, and each PAT's access to each org, kept on
 * the token's own record so that the chain read that `authenticate` makes
 * anyway brings it along (one round trip on PostgreSQL, G4).
 * @module
 */

/**
 * A PAT's access to one org (G3): `pending` (a request waits for an owner),
 * `approved`, `denied` or `revoked` (by the org, for that org only).
 *
 * @example
 * ```ts
 * const statuses: OrgAccessStatus[] = ['pending', 'approved', 'denied', 'revoked'];
 * ```
 */
export type OrgAccessStatus = 'pending' | 'approved' | 'denied' | 'revoked';

/**
 * One org's decision about one token, as the token's record holds it
 * (`TokenRecord.orgAccess`). A child inherits the entries of its ancestors;
 * the nearest entry for an org speaks for the chain, and a `denied` or
 * `revoked` entry anywhere in the chain blocks it.
 *
 * @example
 * ```ts
 * const entry: OrgAccessEntry = {
 *   org: 'acme', status: 'pending', justification: 'CI deploys', requestedAt: new Date(),
 *   reason: null, decidedBy: null, decidedAt: null,
 * };
 * ```
 */
export interface OrgAccessEntry {
  /** The org, lowercase (S7). */
  readonly org: string;
  readonly status: OrgAccessStatus;
  /** Why the token's owner wants it (at most 1 024 characters), or `null`. */
  readonly justification: string | null;
  /** When the request was opened, or `null` when the org decided without one. */
  readonly requestedAt: Date | null;
  /** The deciding owner's reason (at most 1 024 characters), or `null`. */
  readonly reason: string | null;
  /** The user id that approved, denied or revoked, or `null` while pending. */
  readonly decidedBy: string | null;
  /** When, or `null` while pending. */
  readonly decidedAt: Date | null;
}

/**
 * One org's policy as a store keeps it. An org without a stored policy has
 * the defaults, which change nothing (G1): no maximum lifetime, no approval,
 * global access allowed, no address list required, nobody exempt.
 *
 * @example
 * ```ts
 * const p: OrgPolicyRecord = {
 *   org: 'acme', maxLifetimeDays: 90, requireApproval: true, allowGlobal: true,
 *   requireAllowedIps: false, exempt: ['deploy-bot'], updatedBy: 'alice', updatedAt: new Date(),
 * };
 * ```
 */
export interface OrgPolicyRecord {
  /** The org, lowercase (S7). */
  readonly org: string;
  /** The longest a token reaching the org may live, in days (1 to 365), or `null` for the global year. */
  readonly maxLifetimeDays: number | null;
  readonly requireApproval: boolean;
  /** `false`: a token reaches the org only through entries naming it (`acme`, `acme/<repo>`). */
  readonly allowGlobal: boolean;
  /** `true`: a token without an `allowedIps` list (its own or an ancestor's) does not reach the org. */
  readonly requireAllowedIps: boolean;
  /** User ids the lifetime and approval rules do not apply to (at most 100). */
  readonly exempt: readonly string[];
  /** Who set it last (a user id). */
  readonly updatedBy: string;
  /** When (whole seconds). */
  readonly updatedAt: Date;
}

/**
 * Every stored org policy at one moment, with a version that changes
 * whenever any policy does (the service keeps what it derived from a set
 * until the version moves).
 *
 * @example
 * ```ts
 * import { MemoryTokenStore } from 'svc-auth';
 * const store = new MemoryTokenStore();
 * const set = store.readPolicies(); // in memory: no promise
 * set.policies.find((p) => p.org === 'acme')?.maxLifetimeDays; // undefined: acme never set one
 * ```
 */
export interface OrgPolicySet {
  /** Opaque; equal versions mean equal sets. */
  readonly version: string;
  /** One per org that ever set a policy, in no particular order. */
  readonly policies: readonly OrgPolicyRecord[];
}

/**
 * One change to a token's access to an org, applied by
 * `TokenStore.updateOrgAccess` only when the record's current status for
 * `entry.org` is one of `from` (`'none'`: the record has no entry for that org).
 *
 * @example
 * ```ts
 * const approve: OrgAccessChange = {
 *   id: 'q0Zr…', from: ['pending', 'none'],
 *   entry: { org: 'acme', status: 'approved', justification: null, requestedAt: null,
 *            reason: 'ok', decidedBy: 'alice', decidedAt: new Date() },
 * };
 * ```
 */
export interface OrgAccessChange {
  /** The token's record id. */
  readonly id: string;
  readonly from: readonly (OrgAccessStatus | 'none')[];
  /**
   * The new entry for `entry.org`. A store keeps the existing entry's
   * `justification` and `requestedAt` when the new entry's are `null`.
   */
  readonly entry: OrgAccessEntry;
}
