/**
 * The audit events of organization governance (G1-G4), as types: a token
 * asked an org for access, an owner approved, denied or revoked it, an owner
 * changed the policy. Each carries the org and the actor; never a token value.
 * @module
 */
import type { EventActor } from './actor';

/**
 * An org's whole policy as `client(p).org(name).policy.get()` shows it (the
 * same shape as `OrgPolicy`, restated here: the contract imports the events).
 *
 * @example
 * ```ts
 * const p: OrgPolicySnapshot = { org: 'acme', maxLifetime: '90d', requireApproval: false, allowGlobal: true,
 *   requireAllowedIps: false, exempt: [], updatedBy: 'alice', updatedAt: new Date() };
 * ```
 */
export interface OrgPolicySnapshot {
  readonly org: string;
  readonly maxLifetime: string | null;
  readonly requireApproval: boolean;
  readonly allowGlobal: boolean;
  readonly requireAllowedIps: boolean;
  readonly exempt: readonly string[];
  readonly updatedBy: string | null;
  readonly updatedAt: Date | null;
}

/**
 * The token an org event is about, as its record says (never its value).
 *
 * @example
 * ```ts
 * const t: OrgEventToken = { id: 'q0Zr…', name: 'ci', ownerId: 'bob' };
 * ```
 */
export interface OrgEventToken {
  /** Its id (the JWT `jti`). */
  readonly id: string;
  /** The name its owner gave it. */
  readonly name: string;
  /** Whose it is. */
  readonly ownerId: string;
}

/**
 * A new token opened a request for an org that requires approval (its access is `pending`).
 *
 * @example
 * ```ts
 * if (e.type === 'token.requested') notifyOwnersOf(e.org, e.token.name, e.justification);
 * ```
 */
export interface TokenRequestedEvent {
  readonly type: 'token.requested';
  readonly at: Date;
  /** Who created the token. */
  readonly actor: EventActor;
  /** The org, lowercase. */
  readonly org: string;
  readonly token: OrgEventToken;
  /** What the creator wrote, or `null`. */
  readonly justification: string | null;
}

/**
 * An owner of the org approved, denied or revoked a token's access to it
 * (`token.org_revoked`: that org only; the token lives on for its other orgs).
 *
 * @example
 * ```ts
 * if (e.type === 'token.denied') log(`${e.actor.userId} denied ${e.token.name} in ${e.org}: ${e.reason ?? ''}`);
 * ```
 */
export interface TokenOrgDecisionEvent {
  readonly type: 'token.approved' | 'token.denied' | 'token.org_revoked';
  readonly at: Date;
  /** The owner who decided. */
  readonly actor: EventActor;
  /** The org, lowercase. */
  readonly org: string;
  readonly token: OrgEventToken;
  /** The owner's reason, or `null`. */
  readonly reason: string | null;
}

/**
 * An owner changed an org's policy: the whole policy before (the defaults, with
 * `updatedBy` null, when there was none) and after.
 *
 * @example
 * ```ts
 * if (e.type === 'org.policy_changed') log(e.org, e.before.maxLifetime, '->', e.after.maxLifetime);
 * ```
 */
export interface OrgPolicyChangedEvent {
  readonly type: 'org.policy_changed';
  readonly at: Date;
  readonly actor: EventActor;
  /** The org, lowercase. */
  readonly org: string;
  readonly before: OrgPolicySnapshot;
  readonly after: OrgPolicySnapshot;
}
