/**
 * The plain minting of an exchanged token: a PAT record owned by the account
 * (`sa:<org>/<name>`), without a parent, stored before its value is returned,
 * and its `token.created` event. The seam `MintAccountToken` lets the account
 * token creation of service-accounts/ take its place.
 * @module
 */
import { ConflictError, UnavailableError } from '../../errors';
import type { TokenRecord, TokenStore } from '../../stores';
import { mintToken, newTokenId, type KeyRing } from '../../tokens';
import { createdEvent, SERVER_ACTOR, type EventDispatcher } from '../events';
import type { MintAccountToken } from './exchange';

/**
 * @internal The default {@link MintAccountToken} of one `Auth` instance.
 *
 * @example
 * ```ts
 * const mint = plainMint({ issuer: 'https://svc.example', keys, store, call, events: null });
 * const { token } = await mint({ account, accountId: 'sa:acme/ci-bot', name: 'workload-a1b2c3d4', scopes: null, lifetimeSec: 900, nowMs: Date.now() });
 * ```
 */
export function plainMint(deps: {
  readonly issuer: string;
  readonly keys: KeyRing;
  readonly store: TokenStore;
  call<T>(what: string, fn: () => T | Promise<T>): Promise<T>;
  readonly events: EventDispatcher | null;
}): MintAccountToken {
  return async (input) => {
    const iat = Math.floor(input.nowMs / 1000);
    const exp = iat + input.lifetimeSec;
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
    });
    const token = await mintToken(deps.keys, { kind: 'pat', iss: deps.issuer, sub: input.accountId, jti: record.id, iat, exp });
    const result = await deps.call('token store', () => deps.store.insert(record, new Date(input.nowMs)));
    // A random name taken already: the odds are nil; said plainly rather than retried.
    if (result === 'name_taken') throw new ConflictError(`the account already holds an active token named "${input.name}"`);
    if (result !== 'ok') throw new UnavailableError('token store insert returned an unexpected result');
    deps.events?.emit(createdEvent(new Date(input.nowMs), SERVER_ACTOR, record));
    return { token, tokenId: record.id, expiresAt: record.expiresAt };
  };
}
