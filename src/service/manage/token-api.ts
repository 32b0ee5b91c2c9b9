/**
 * The SDK namespace `client(principal).token.*` (docs/concepts.md): create, list, get
 * and revoke PATs under rules M1-M5 and T3, T6-T9.
 * @module
 */
import { AuthenticationError, ConflictError, ForbiddenError, NotFoundError, UnavailableError, ValidationError } from '../../errors';
import type { Principal, UserRoles } from '../../core/policy';
import type { Scope } from '../../core/scopes';
import type { TokenRecord } from '../../stores';
import { parsePatExpiry, mintToken, newTokenId } from '../../tokens';
import { chainExpiryMs } from '../authenticate';
import type { ServiceContext } from '../internals';
import { actorOf, createdEvent, revokedEvent } from '../events';
import { checkIpNarrowing, checkNarrowing, narrowedRefusal, roleWarnings } from './narrowing';
import { managedRecords, pickForGet, pickForRevoke, toInfo } from './token-info';
import { ancestorsOf, emitRequested, orgRulesAtCreation } from './org-rules';
import { checkCreateInput, checkName } from './create-input';
import type { CreateTokenInput, ListTokensOptions, TokenApi, TokenInfo } from '../contract';

/** Warning of `create` without scopes: a token that can do all its owner can is rarely what a script needs. */
const FULL_ACCESS_WARNING =
  "no scopes given: this token carries its owner's full access (every role, now and later); pass scopes to limit it";

/** `list` options: `null` for no filter, else the window in milliseconds. */
function checkListOptions(options: unknown): number | null {
  if (options === undefined) return null;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ValidationError([{ path: '', message: 'list takes an object { expiringWithin? }' }]);
  }
  const bad = Reflect.ownKeys(options).filter((k) => k !== 'expiringWithin');
  if (bad.length > 0) throw new ValidationError(bad.map((k) => ({ path: String(k), message: 'unknown option' })));
  const within = (options as ListTokensOptions).expiringWithin;
  if (within === undefined) return null;
  try {
    return parsePatExpiry(within) * 1000;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError([{ path: 'expiringWithin', message: 'expected <N>d or a whole number of days, N from 1 to 365' }]);
  }
}

/**
 * Whose tokens a token API manages: the caller's own (`client(p).token`), or
 * a service account's for an org admin (`org(o).serviceAccount(n).token`).
 *
 * @example
 * ```ts
 * const owner: TokenOwner = { userId: 'sa:acme/ci-bot', rootId: null, begin: async () => ({ chain: null, roles }) };
 * ```
 */
export interface TokenOwner {
  /** The owner of the tokens: `sub` and `ownerId` of what is created. */
  readonly userId: string;
  /** The caller's own PAT, whose subtree it manages (M2), or `null` for every token of the owner. */
  readonly rootId: string | null;
  /**
   * Recheck the caller (T5) before each call; resolves to the chain a new token is created
   * under (a PAT's, else `null`) and the owner's roles (for warnings at creation).
   * `forCreate` is true for `create`, which an owner that may not get new tokens refuses.
   */
  begin(forCreate: boolean): Promise<{ chain: readonly TokenRecord[] | null; roles: UserRoles }>;
}

/**
 * Build `client(p).token` for a principal of `ctx`. A component token is
 * refused every call (M3); a session manages all of its user's PATs (M1); a
 * PAT manages its descendant subtree only (M2).
 *
 * @example
 * ```ts
 * const api = tokenApi(ctx, principal);
 * const { token, info } = await api.create({ name: 'ci', expiresIn: '30d' });
 * ```
 */
export function tokenApi(ctx: ServiceContext, p: Principal): TokenApi {
  const state = ctx.stateOf(p);
  return ownedTokenApi(ctx, p, {
    userId: p.userId,
    rootId: p.kind === 'pat' ? (p.tokenId as string) : null,
    async begin() {
      if (p.kind === 'component') throw new ForbiddenError('component tokens may not manage tokens');
      // A token minted here would not carry the issuer's scope: a `repo:read` grant could mint a full-access PAT.
      if (state.narrowing !== undefined) throw narrowedRefusal(state, 'manage tokens');
      const chain = await ctx.recheck(p);
      // A session's own record is no parent: what it creates is top-level, limited by nothing of the session's (M1).
      return { chain: p.kind === 'pat' ? chain : null, roles: state.roles };
    },
  });
}

/**
 * The token API of `owner`, called by `p` (the actor of its events). One code path for a
 * person's own tokens and a service account's (W2: every PAT rule holds for both).
 *
 * @example
 * ```ts
 * const api = ownedTokenApi(ctx, admin, accountOwner);
 * await api.create({ name: 'deploy', scopes: ['acme/web=repo:write'] });
 * ```
 */
export function ownedTokenApi(ctx: ServiceContext, p: Principal, owner: TokenOwner): TokenApi {
  const { userId, rootId } = owner;

  /** The records this credential manages, and a view maker that shows what each inherits (G3). */
  async function managed(): Promise<{ records: TokenRecord[]; view: (r: TokenRecord, nowMs: number) => TokenInfo }> {
    const all = await ctx.call('token store', () => ctx.store.listByOwner(userId));
    if (!Array.isArray(all)) throw new UnavailableError('token store listByOwner did not return a list');
    const byId = new Map(all.map((r) => [r.id, r]));
    return { records: managedRecords(all, rootId), view: (r, nowMs) => toInfo(r, nowMs, ancestorsOf(r, byId)) };
  }

  return Object.freeze({
    async create(input: CreateTokenInput) {
      const { chain, roles } = await owner.begin(true);
      const checked = await checkCreateInput(input);
      const warnings = checked.warnings;
      if (chain !== null && checked.scopes !== null) {
        checkNarrowing(
          checked.scopes,
          chain.filter((r) => r.scopes !== null).map((r) => r.scopes as readonly Scope[]),
        );
      }
      if (chain !== null && checked.allowedIps !== null) checkIpNarrowing(checked.allowedIps, chain);
      // Narrowing only: a child of a bound token is bound, to its parent's key unless it names its own.
      const boundKey = checked.boundKey ?? chain?.find((r) => r.boundKey != null)?.boundKey ?? null;
      if (checked.scopes !== null) warnings.push(...roleWarnings(checked.scopes, roles));
      // Under a scoped parent an unscoped child inherits the parent's limits (A5): nothing to warn about.
      else if (chain === null || chain.every((r) => r.scopes === null)) warnings.push(FULL_ACCESS_WARNING);
      const nowMs = ctx.nowMs();
      const iat = Math.floor(nowMs / 1000);
      let exp = iat + checked.lifetimeSec;
      if (chain !== null) {
        const limit = Math.floor(chainExpiryMs(chain) / 1000);
        if (exp > limit) {
          exp = limit;
          // Without an explicit expiry, taking the parent's remaining lifetime is the expected default.
          if (checked.explicitExpiry)
            warnings.push(`expiry clamped to ${new Date(limit * 1000).toISOString()}, when the token that creates it expires`);
        }
      }
      const rules = await orgRulesAtCreation(ctx, userId, {
        scopes: checked.scopes,
        chain,
        lifetimeSec: exp - iat,
        allowedIps: checked.allowedIps,
        justification: checked.justification,
        at: new Date(iat * 1000),
      });
      const record: TokenRecord = Object.freeze({
        id: newTokenId(),
        kind: 'pat' as const,
        ownerId: userId,
        name: checked.name,
        description: checked.description,
        scopes: checked.scopes === null ? null : Object.freeze([...checked.scopes]),
        parentId: rootId,
        createdAt: new Date(iat * 1000),
        expiresAt: new Date(exp * 1000),
        revokedAt: null,
        committerIdentity: checked.committerIdentity,
        ...(checked.allowedIps === null ? {} : { allowedIps: checked.allowedIps }),
        ...(rules.entries.length === 0 ? {} : { orgAccess: Object.freeze(rules.entries) }),
        ...(boundKey === null ? {} : { boundKey }),
      });
      // Mint before storing: a failure leaves no record behind to hold the name.
      const token = await mintToken(ctx.keys, { kind: 'pat', iss: ctx.issuer, sub: userId, jti: record.id, iat, exp });
      const result = await ctx.call('token store', () => ctx.store.insert(record, new Date(nowMs)));
      if (result === 'name_taken') throw new ConflictError(`this user already holds an active token named "${checked.name}"`);
      if (result === 'parent_inactive') throw new AuthenticationError('revoked', 'the token creating this one is no longer active');
      if (result !== 'ok') throw new UnavailableError('token store insert returned an unknown result');
      ctx.events?.emit(createdEvent(new Date(nowMs), actorOf(p), record));
      emitRequested(ctx, p, record, rules.requested);
      return { token, info: toInfo(record, nowMs, chain ?? []), warnings };
    },

    async list(options?: ListTokensOptions): Promise<TokenInfo[]> {
      await owner.begin(false);
      const withinMs = checkListOptions(options);
      const { records, view } = await managed();
      const nowMs = ctx.nowMs();
      const infos = records.map((r) => view(r, nowMs));
      if (withinMs === null) return infos;
      return infos.filter((t) => t.status === 'active' && t.expiresAt.getTime() - nowMs <= withinMs);
    },

    async get(name: string): Promise<TokenInfo> {
      await owner.begin(false);
      const n = checkName(name);
      const nowMs = ctx.nowMs();
      const { records, view } = await managed();
      const rec = pickForGet(records, n, nowMs);
      if (rec === undefined) throw new NotFoundError(`no token named "${n}" among the tokens this credential manages`);
      return view(rec, nowMs);
    },

    async revoke(name: string): Promise<TokenInfo> {
      await owner.begin(false);
      const n = checkName(name);
      const { records, view } = await managed();
      const rec = pickForRevoke(records, n);
      if (rec === undefined) {
        // M2 answers NotFound outside the subtree so that nothing leaks; a PAT's
        // own name leaks nothing (it holds it), so it is told why instead.
        if (rootId !== null && rootId === p.tokenId && n === p.tokenName) {
          throw new ForbiddenError('a token cannot revoke itself: a session of its user, or the token that created it, can');
        }
        throw new NotFoundError(`no token named "${n}" among the tokens this credential manages`);
      }
      if (rec.revokedAt !== null) return view(rec, ctx.nowMs());
      const nowMs = ctx.nowMs();
      const revoked = await ctx.call('token store', () => ctx.store.revoke([rec.id], new Date(nowMs)));
      ctx.events?.emit(revokedEvent(new Date(nowMs), actorOf(p), rec.id, revoked));
      const fresh = await ctx.call('token store', () => ctx.store.readChain(rec.id));
      const head = Array.isArray(fresh) ? fresh[0] : undefined;
      if (head === undefined || head.id !== rec.id) throw new UnavailableError('token store lost a record while revoking it');
      return toInfo(head, nowMs, (fresh as readonly TokenRecord[]).slice(1));
    },
  });
}
