/**
 * The plain minting of an exchanged token: a PAT record owned by the account
 * (`sa:<org>/<name>`), without a parent, stored before its value is returned,
 * and its `token.created` event. The orgs' policies apply as to any token an
 * admin makes for the account (G2, G3): a policy the token breaks refuses the
 * exchange, and an org that approves tokens is asked (`token.requested`).
 * @module
 */
import { ConflictError, UnavailableError } from '../../errors';
import type { TokenRecord, TokenStore } from '../../stores';
import { mintToken, newTokenId, type KeyRing } from '../../tokens';
import { createdEvent, requestedEvent, SERVER_ACTOR, type EventDispatcher } from '../events';
import { accessAtCreation, policyIndexReader } from '../orgs';
import type { MintAccountToken } from './exchange';

/**
 * @internal The default {@link MintAccountToken} of one `Auth` instance.
 *
 * @example
 * ```ts
 * const mint = plainMint({ issuer: 'https://svc.example', keys, store, call, events: null });
 * const { token } = await mint({ account, accountId: 'sa:acme/ci-bot', role: 'editor', name: 'workload-a1b2c3d4', scopes: null, lifetimeSec: 900, nowMs: Date.now() });
 * ```
 */
export function plainMint(deps: {
  readonly issuer: string;
  readonly keys: KeyRing;
  readonly store: TokenStore;
  call<T>(what: string, fn: () => T | Promise<T>): Promise<T>;
  readonly events: EventDispatcher | null;
}): MintAccountToken {
  const policies = policyIndexReader(deps.store, (what, fn) => deps.call(what, fn));
  return async (input) => {
    const iat = Math.floor(input.nowMs / 1000);
    const exp = iat + input.lifetimeSec;
    const roles = { orgs: { [input.account.org]: input.role } };
    const rules = await accessAtCreation(policies, () => roles, {
      ownerId: input.accountId,
      scopes: input.scopes,
      chain: null,
      lifetimeSec: exp - iat,
      allowedIps: null,
      justification: null,
      at: new Date(iat * 1000),
    });
    const record: TokenRecord = Object.freeze({
      id: newTokenId(),
      kind: 'pat' as const,
      ownerId: input.accountId,
      name: input.name,
      description: 'exchanged for a workload identity token',
      scopes: input.scopes === null ? null : Object.freeze([...input.scopes]),
      parentId: null,
      createdAt: new Date(iat * 1000),
      expiresAt: new Date(exp * 1000),
      revokedAt: null,
      committerIdentity: null,
      ...(rules.entries.length === 0 ? {} : { orgAccess: Object.freeze(rules.entries) }),
    });
    const token = await mintToken(deps.keys, { kind: 'pat', iss: deps.issuer, sub: input.accountId, jti: record.id, iat, exp });
    const result = await deps.call('token store', () => deps.store.insert(record, new Date(input.nowMs)));
    // A random name taken already: the odds are nil; said plainly rather than retried.
    if (result === 'name_taken') throw new ConflictError(`the account already holds an active token named "${input.name}"`);
    if (result !== 'ok') throw new UnavailableError('token store insert returned an unexpected result');
    deps.events?.emit(createdEvent(new Date(input.nowMs), SERVER_ACTOR, record));
    for (const org of rules.requested) deps.events?.emit(requestedEvent(SERVER_ACTOR, record, org));
    return { token, tokenId: record.id, expiresAt: record.expiresAt };
  };
}
