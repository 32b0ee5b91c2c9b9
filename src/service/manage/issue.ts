/**
 * Issuing sessions and component tokens (T3): a session has no record and
 * ends by expiry; a component token has a record (its scopes, revocation)
 * that token management never lists.
 * @module
 */
import { UnavailableError, ValidationError, type IssueInput } from '../../errors';
import { normalizeScopes, type ScopeEntry } from '../../core/scopes';
import type { TokenRecord, TokenStore } from '../../stores';
import { newTokenId, LIFETIMES, parseShortDuration, mintToken } from '../../tokens';
import { createdEvent, SERVER_ACTOR, type EventDispatcher } from '../events';
import { checkOptions } from '../../core/vocabulary';
import { checkUserId } from '../identity';
import type { ResolvedOptions } from '../options';
import type { Auth } from '../types';

function rejectUnknownKeys(opts: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) {
    throw new ValidationError([{ path: 'opts', message: 'must be an object' }]);
  }
  const issues: IssueInput[] = [];
  if (!checkOptions(opts, allowed, 'opts', issues)) throw new ValidationError(issues);
  return opts as Record<string, unknown>;
}

/** @internal `issueSession` and `issueComponentToken` of one Auth instance (arguments as `createAuthenticator`). */
export function issuers(
  opts: ResolvedOptions,
  store: TokenStore,
  nowMs: () => number,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
  events: EventDispatcher | null,
): Pick<Auth, 'issueSession' | 'issueComponentToken'> {
  return {
    async issueSession(userId, sessionOpts) {
      const id = checkUserId(userId, opts.identityOf === undefined);
      const o = rejectUnknownKeys(sessionOpts, ['expiresIn']);
      const sec = parseShortDuration(o.expiresIn as string | undefined, LIFETIMES.session);
      const iat = Math.floor(nowMs() / 1000);
      return mintToken(opts.keys, { kind: 'session', iss: opts.issuer, sub: id, jti: newTokenId(), iat, exp: iat + sec });
    },
    async issueComponentToken(userId, componentOpts) {
      const id = checkUserId(userId, opts.identityOf === undefined);
      const o = rejectUnknownKeys(componentOpts, ['scopes', 'expiresIn']);
      const sec = parseShortDuration(o.expiresIn as string | undefined, LIFETIMES.component);
      const scopes = o.scopes === undefined ? null : normalizeScopes(o.scopes as ScopeEntry[]).scopes;
      const at = nowMs();
      const iat = Math.floor(at / 1000);
      const jti = newTokenId();
      const record: TokenRecord = Object.freeze({
        id: jti,
        kind: 'component' as const,
        ownerId: id,
        name: `component-${jti.slice(0, 8)}`,
        description: null,
        scopes: scopes === null ? null : Object.freeze(scopes),
        parentId: null,
        createdAt: new Date(iat * 1000),
        expiresAt: new Date((iat + sec) * 1000),
        revokedAt: null,
        committerIdentity: null,
      });
      const token = await mintToken(opts.keys, { kind: 'component', iss: opts.issuer, sub: id, jti, iat, exp: iat + sec });
      const result = await call('token store', () => store.insert(record, new Date(at)));
      if (result !== 'ok') throw new UnavailableError(`token store refused a component token record (${String(result)})`);
      events?.emit(createdEvent(new Date(at), SERVER_ACTOR, record));
      return token;
    },
  };
}
