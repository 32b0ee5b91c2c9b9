/**
 * `client(p).org(name)`: an org owner's governance face (G1-G4). Every call
 * rechecks the caller (T5) and needs `org:admin` on the org as the caller's
 * grant decides it; a component token never gets in.
 * @module
 */
import { ForbiddenError, NotFoundError, UnavailableError } from '../../errors';
import type { Principal, UserRoles } from '../../core/policy';
import type {
  OrgAccessChange,
  OrgAccessEntry,
  OrgAccessStatus,
  OrgPolicyRecord,
  OrgPolicySet,
  TokenRecord,
  TokenStore,
} from '../../stores';
import type { ServiceContext } from '../internals';
import type { OrgApi, OrgPolicy, OrgRequest, OrgTokenInfo } from '../contract';
import { actorOf } from '../events';
import { checkDecision, checkFilter, checkListOptions, checkOrg, checkPolicyInput } from './input';
import { effectiveEntry, namesOrg, ownEntry, toOrgToken, toPolicy, toRequest } from './view';
import { orgRoleOf } from './gates';

type Governed = Required<Pick<TokenStore, 'readPolicies' | 'setPolicy' | 'updateOrgAccess' | 'listForOrg'>>;

/** Does the owner hold a role in `org` (its org role, or a repo role in one of its repos)? */
function holdsRole(roles: UserRoles, org: string): boolean {
  if (orgRoleOf(roles, org) !== undefined) return true;
  const repos: unknown = typeof roles === 'object' && roles !== null ? roles.repos : undefined;
  return typeof repos === 'object' && repos !== null && Object.keys(repos).some((k) => k.toLowerCase().startsWith(`${org}/`));
}

/**
 * Build `client(p).org(name)` for a principal of `ctx`.
 *
 * @example
 * ```ts
 * const acme = orgApi(ctx, principal, 'acme');
 * await acme.policy.set({ maxLifetime: '90d' });
 * ```
 */
export function orgApi(ctx: ServiceContext, p: Principal, name: string): Omit<OrgApi, 'serviceAccounts' | 'serviceAccount'> {
  ctx.stateOf(p);

  /** The org name, the store's governance, and a caller allowed to govern, or a refusal. */
  async function begin(): Promise<{ org: string; store: Governed }> {
    const org = checkOrg(name);
    if (p.kind === 'component') throw new ForbiddenError(`component tokens may not govern organizations (org:admin on '${org}')`);
    await ctx.recheck(p);
    if (!ctx.decide(p, org, 'org:admin').allowed) throw new ForbiddenError(`this credential lacks org:admin on '${org}'`);
    const s = ctx.store;
    if (
      typeof s.readPolicies !== 'function' ||
      typeof s.setPolicy !== 'function' ||
      typeof s.updateOrgAccess !== 'function' ||
      typeof s.listForOrg !== 'function'
    ) {
      throw new UnavailableError('this token store keeps no organization policies');
    }
    return { org, store: s as TokenStore & Governed };
  }

  async function policyOf(store: Governed, org: string): Promise<OrgPolicyRecord | undefined> {
    const set = await ctx.call<OrgPolicySet>('token store', () => store.readPolicies());
    const policies: unknown = typeof set === 'object' && set !== null ? set.policies : undefined;
    if (!Array.isArray(policies)) throw new UnavailableError('token store readPolicies did not return a policy set');
    return (policies as readonly OrgPolicyRecord[]).find((x) => x.org.toLowerCase() === org);
  }

  /** The PAT records that reach the org: entries name it, or its owner holds a role in it. */
  async function reaching(store: Governed, org: string): Promise<{ records: TokenRecord[]; byId: Map<string, TokenRecord> }> {
    const all = await ctx.call('token store', () => store.listForOrg(org));
    if (!Array.isArray(all)) throw new UnavailableError('token store listForOrg did not return a list');
    const byId = new Map(all.map((r) => [r.id, r]));
    const owners = [...new Set(all.map((r) => r.ownerId))];
    const roles = new Map<string, UserRoles>();
    for (const o of owners) roles.set(o, await ctx.rolesOf(o));
    const records = all.filter(
      (r) =>
        r.kind === 'pat' &&
        (ownEntry(r, org) !== undefined ||
          (r.scopes !== null && r.scopes.some((s) => namesOrg(s, org))) ||
          holdsRole(roles.get(r.ownerId) ?? {}, org)),
    );
    return { records, byId };
  }

  /** Ids not among `records`: `NotFoundError` listing them, before anything changes. */
  function pick(records: readonly TokenRecord[], ids: readonly string[], org: string): TokenRecord[] {
    const by = new Map(records.map((r) => [r.id, r]));
    const missing = ids.filter((id) => !by.has(id));
    if (missing.length > 0) throw new NotFoundError(`not tokens that reach '${org}': ${missing.join(', ')}`);
    return ids.map((id) => by.get(id) as TokenRecord);
  }

  async function decide(
    ids: unknown,
    options: unknown,
    status: OrgAccessStatus,
    from: OrgAccessChange['from'],
  ): Promise<{ org: string; store: Governed; changed: TokenRecord[]; entry: OrgAccessEntry; reason: string | null }> {
    const checked = checkDecision(ids, options);
    const { org, store } = await begin();
    const { records } = await reaching(store, org);
    const targets = pick(records, checked.ids, org);
    const at = new Date(Math.floor(ctx.nowMs() / 1000) * 1000);
    const entry: OrgAccessEntry = Object.freeze({
      org,
      status,
      justification: null,
      requestedAt: null,
      reason: checked.reason,
      decidedBy: p.userId,
      decidedAt: at,
    });
    const done = await ctx.call('token store', () => store.updateOrgAccess(targets.map((r) => ({ id: r.id, from, entry }))));
    const ids2 = new Set(Array.isArray(done) ? done : []);
    const changed = targets.filter((r) => ids2.has(r.id));
    const type = status === 'approved' ? 'token.approved' : status === 'denied' ? 'token.denied' : 'token.org_revoked';
    for (const r of changed) {
      ctx.events?.emit(
        Object.freeze({
          type,
          at,
          actor: actorOf(p),
          org,
          token: Object.freeze({ id: r.id, name: r.name, ownerId: r.ownerId }),
          reason: checked.reason,
        }),
      );
    }
    return { org, store, changed, entry, reason: checked.reason };
  }

  /** A record with `entry` as its own entry for the org (the view of a change just made). */
  function withEntry(r: TokenRecord, entry: OrgAccessEntry): { record: TokenRecord; entry: OrgAccessEntry } {
    const old = ownEntry(r, entry.org);
    const merged: OrgAccessEntry = {
      ...entry,
      justification: entry.justification ?? old?.justification ?? null,
      requestedAt: entry.requestedAt ?? old?.requestedAt ?? null,
    };
    return { record: r, entry: merged };
  }

  return Object.freeze({
    policy: Object.freeze({
      async get(): Promise<OrgPolicy> {
        const { org, store } = await begin();
        return toPolicy(org, await policyOf(store, org));
      },
      async set(input: Parameters<OrgApi['policy']['set']>[0]): Promise<OrgPolicy> {
        const change = checkPolicyInput(input);
        const { org, store } = await begin();
        const current = await policyOf(store, org);
        const at = new Date(Math.floor(ctx.nowMs() / 1000) * 1000);
        const next: OrgPolicyRecord = Object.freeze({
          org,
          maxLifetimeDays: change.maxLifetimeDays !== undefined ? change.maxLifetimeDays : (current?.maxLifetimeDays ?? null),
          requireApproval: change.requireApproval ?? current?.requireApproval ?? false,
          allowGlobal: change.allowGlobal ?? current?.allowGlobal ?? true,
          requireAllowedIps: change.requireAllowedIps ?? current?.requireAllowedIps ?? false,
          exempt: Object.freeze([...(change.exempt ?? current?.exempt ?? [])]),
          updatedBy: p.userId,
          updatedAt: at,
        });
        const replaced = await ctx.call('token store', () => store.setPolicy(next));
        const after = toPolicy(org, next);
        ctx.events?.emit(
          Object.freeze({
            type: 'org.policy_changed',
            at,
            actor: actorOf(p),
            org,
            before: toPolicy(org, replaced ?? current),
            after: toPolicy(org, next),
          }),
        );
        return after;
      },
    }),
    requests: Object.freeze({
      async list(options?: { status?: OrgAccessStatus }): Promise<OrgRequest[]> {
        const status = checkListOptions(options);
        const { org, store } = await begin();
        const { records } = await reaching(store, org);
        const out: OrgRequest[] = [];
        for (const r of records) {
          const e = ownEntry(r, org);
          if (e !== undefined && e.status === status) out.push(toRequest(r, e, org));
        }
        return out;
      },
      async approve(ids: string[], options?: { reason?: string }): Promise<OrgRequest[]> {
        const d = await decide(ids, options, 'approved', ['pending', 'none']);
        return d.changed.map((r) => withEntry(r, d.entry)).map(({ record, entry }) => toRequest(record, entry, d.org));
      },
      async deny(ids: string[], options?: { reason?: string }): Promise<OrgRequest[]> {
        const d = await decide(ids, options, 'denied', ['pending', 'none']);
        return d.changed.map((r) => withEntry(r, d.entry)).map(({ record, entry }) => toRequest(record, entry, d.org));
      },
    }),
    tokens: Object.freeze({
      async list(filter?: Parameters<OrgApi['tokens']['list']>[0]): Promise<OrgTokenInfo[]> {
        const f = checkFilter(filter);
        const { org, store } = await begin();
        const [{ records, byId }, policy] = [await reaching(store, org), await policyOf(store, org)];
        const nowMs = ctx.nowMs();
        return records
          .map((r) => toOrgToken(r, org, effectiveEntry(r, org, byId), policy?.requireApproval === true, nowMs))
          .filter(
            (t) =>
              (f.owner === undefined || t.ownerId === f.owner) &&
              (f.status === undefined || t.status === f.status) &&
              (f.access === undefined || t.access === f.access) &&
              (f.lastUsedBefore === undefined || t.lastUsed === null || t.lastUsed.at < f.lastUsedBefore) &&
              (f.permission === undefined ||
                t.scopes === null ||
                t.scopes.some((s) => (s.permissions as string[]).includes(f.permission as string))),
          );
      },
      async revoke(ids: string[], options?: { reason?: string }): Promise<OrgTokenInfo[]> {
        const d = await decide(ids, options, 'revoked', ['none', 'pending', 'approved', 'denied']);
        const nowMs = ctx.nowMs();
        return d.changed.map((r) => {
          const { entry } = withEntry(r, d.entry);
          return toOrgToken(r, d.org, entry, false, nowMs);
        });
      },
    }),
  });
}
