/**
 * The request path's reading of the orgs' policies: one `readPolicies` per PAT
 * request (a memory store answers without a promise), the derived per-org map
 * rebuilt only when the version moves, and nothing at all for a store that
 * keeps no policies.
 * @module
 */
import { UnavailableError } from '../../errors';
import type { OrgGate, UserRoles } from '../../core/policy';
import type { OrgAccessEntry, OrgPolicySet, TokenRecord, TokenStore } from '../../stores';
import { failure, isThenable } from '../deadlines';
import { orgAccessAtCreation, type NewToken } from './create';
import { gatesOf, hasEntries, policyIndex, type PolicyIndex } from './gates';

type Gates = Readonly<Record<string, OrgGate>> | null;

/** A set as the contract says, else the store is broken: never an allow. */
function checkSet(set: unknown): OrgPolicySet {
  const s = set as OrgPolicySet | null;
  if (typeof s !== 'object' || s === null || typeof s.version !== 'string' || !Array.isArray(s.policies)) {
    throw new UnavailableError('token store readPolicies did not return a policy set');
  }
  return s;
}

/**
 * The policy index of a store, read now, with the one derived before reused
 * while the version holds.
 *
 * @example
 * ```ts
 * const read = policyIndexReader(store, call);
 * const index = read === null ? null : await read();
 * ```
 */
export function policyIndexReader(
  store: TokenStore,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
): (() => PolicyIndex | Promise<PolicyIndex>) | null {
  if (typeof store.readPolicies !== 'function') return null;
  let index: PolicyIndex | null = null;
  const derive = (set: unknown): PolicyIndex => (index = policyIndex(checkSet(set), index));
  return () => {
    let got: OrgPolicySet | Promise<OrgPolicySet>;
    try {
      got = (store.readPolicies as () => OrgPolicySet | Promise<OrgPolicySet>)();
    } catch (err) {
      throw failure(err, 'token store');
    }
    return isThenable(got) ? call('token store', () => got).then(derive) : derive(got);
  };
}

/**
 * The `orgAccess` entries of a new token and the orgs that must approve it, by the policies read now
 * through `read` (a {@link policyIndexReader}); nothing without one, or while no org has a policy, and
 * only then are the owner's roles asked for (whether the owner owns an org decides approval).
 *
 * @example
 * ```ts
 * const rules = await accessAtCreation(read, () => rolesOf(userId), { ownerId: userId, scopes, chain, lifetimeSec, allowedIps: null, justification: null, at });
 * ```
 */
export async function accessAtCreation(
  read: (() => PolicyIndex | Promise<PolicyIndex>) | null,
  rolesOf: () => UserRoles | Promise<UserRoles>,
  t: Omit<NewToken, 'roles'>,
): Promise<{ entries: OrgAccessEntry[]; requested: string[] }> {
  if (read === null) return { entries: [], requested: [] };
  const got = read();
  const index = got instanceof Promise ? await got : got;
  if (index.byOrg.size === 0) return { entries: [], requested: [] };
  const roles = rolesOf();
  return orgAccessAtCreation(index, { ...t, roles: roles instanceof Promise ? await roles : roles });
}

/**
 * The org gates of each PAT request: `null` without a store that keeps
 * policies (then nothing is read), else a function of the chain and the roles
 * read now (G2, G4: a change by any server holds on the next request).
 *
 * @example
 * ```ts
 * const gatesFor = gateReader(store, call);
 * const gates = gatesFor === null ? null : await gatesFor(chain, roles);
 * ```
 */
export function gateReader(
  store: TokenStore,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
): ((chain: readonly TokenRecord[], roles: UserRoles) => Gates | Promise<Gates>) | null {
  const read = policyIndexReader(store, call);
  if (read === null) return null;
  const gates = (index: PolicyIndex, chain: readonly TokenRecord[], roles: UserRoles): Gates =>
    index.active.length === 0 && !hasEntries(chain) ? null : gatesOf(index.active, chain, roles);
  return (chain, roles) => {
    const got = read();
    return got instanceof Promise ? got.then((index) => gates(index, chain, roles)) : gates(got, chain, roles);
  };
}
