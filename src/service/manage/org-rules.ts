/**
 * The orgs' policies at token creation (G2, G3), as token management applies
 * them: read the policies and the owner's roles now, refuse what breaks a
 * policy, and tell the orgs that must approve the new token.
 * @module
 */
import type { Principal } from '../../core/policy';
import type { OrgAccessEntry, TokenRecord } from '../../stores';
import type { ServiceContext } from '../internals';
import { actorOf, requestedEvent } from '../events';
import { accessAtCreation, policyIndexReader, type NewToken } from '../orgs';

/** What creation hands over: the new token but its owner and roles, which are read here. */
type Creating = Omit<NewToken, 'ownerId' | 'roles'>;

/**
 * The new token's `orgAccess` entries and the orgs to tell (`token.requested`
 * once it is stored); nothing for a store that keeps no policies. Throws the
 * `ValidationError` of a broken policy.
 *
 * @example
 * ```ts
 * const rules = await orgRulesAtCreation(ctx, p.userId, { scopes, chain, lifetimeSec, allowedIps: null, justification: null, at });
 * ```
 */
export function orgRulesAtCreation(
  ctx: ServiceContext,
  ownerId: string,
  t: Creating,
): Promise<{ entries: OrgAccessEntry[]; requested: string[] }> {
  // Roles read now (not those the caller was authenticated with): whether the owner owns the org decides approval.
  return accessAtCreation(
    policyIndexReader(ctx.store, (what, fn) => ctx.call(what, fn)),
    () => ctx.rolesOf(ownerId),
    { ownerId, ...t },
  );
}

/**
 * Emit `token.requested` for each org the new record asks.
 *
 * @example
 * ```ts
 * emitRequested(ctx, p, record, rules.requested);
 * ```
 */
export function emitRequested(ctx: ServiceContext, p: Principal, record: TokenRecord, orgs: readonly string[]): void {
  if (ctx.events === null) return;
  for (const org of orgs) ctx.events.emit(requestedEvent(actorOf(p), record, org));
}

/**
 * A record's ancestors (nearest first) among `byId`, for the access it inherits.
 *
 * @example
 * ```ts
 * ancestorsOf(child, new Map(all.map((r) => [r.id, r]))); // [parent, grandparent]
 * ```
 */
export function ancestorsOf(record: TokenRecord, byId: ReadonlyMap<string, TokenRecord>): TokenRecord[] {
  const out: TokenRecord[] = [];
  const seen = new Set<string>([record.id]);
  for (let id = record.parentId; id !== null && !seen.has(id);) {
    const r = byId.get(id);
    if (r === undefined) break;
    seen.add(id);
    out.push(r);
    id = r.parentId;
  }
  return out;
}
