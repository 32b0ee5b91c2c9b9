/**
 * Issuing sessions and component tokens (T3). Both get a record, stored before
 * the token is handed out and read on every request (T5), so that either can
 * be revoked: a session's record (no scopes, no parent) is what
 * `client(p).sessions` lists and ends; a component token's holds its scopes.
 * Token management lists neither.
 * @module
 */
import { UnavailableError, ValidationError, type IssueInput } from '../../errors';
import { LIMITS, normalizeScopes, type ScopeEntry } from '../../core/scopes';
import type { TokenRecord, TokenStore } from '../../stores';
import { newTokenId, LIFETIMES, parseShortDuration, mintToken } from '../../tokens';
import { createdEvent, SERVER_ACTOR, type EventDispatcher } from '../events';
import { checkOptions } from '../../core/vocabulary';
import { checkUserId } from '../identity';
import type { ResolvedOptions } from '../options';
import type { Auth } from '../contract';

function rejectUnknownKeys(opts: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) {
    throw new ValidationError([{ path: 'opts', message: 'must be an object' }]);
  }
  const issues: IssueInput[] = [];
  if (!checkOptions(opts, allowed, 'opts', issues)) throw new ValidationError(issues);
  return opts as Record<string, unknown>;
}

/** The name a session gets when `issueSession` is given none. */
const DEFAULT_SESSION_NAME = 'session';

/** A session's `name` option: a label for `sessions.list()`, as a token name is written (S8); never unique. */
function sessionName(name: unknown): string {
  if (name === undefined) return DEFAULT_SESSION_NAME;
  if (typeof name !== 'string' || !LIMITS.tokenName.test(name)) {
    throw new ValidationError([{ path: 'name', message: 'must be 1 to 64 letters, digits, hyphens or underscores' }]);
  }
  return name;
}

/** Store `record`, which must be new: any other answer means the store is not behaving. */
async function insertNew(
  store: TokenStore,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
  record: TokenRecord,
  at: number,
): Promise<void> {
  const result = await call('token store', () => store.insert(record, new Date(at)));
  if (result !== 'ok') throw new UnavailableError(`token store refused a ${record.kind} record (${String(result)})`);
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
      const o = rejectUnknownKeys(sessionOpts, ['expiresIn', 'name']);
      const issues: IssueInput[] = [];
      let sec = 0;
      let name = DEFAULT_SESSION_NAME;
      try {
        sec = parseShortDuration(o.expiresIn as string | undefined, LIFETIMES.session);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        issues.push(...err.issues);
      }
      try {
        name = sessionName(o.name);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        issues.push(...err.issues);
      }
      if (issues.length > 0) throw new ValidationError(issues);
      const at = nowMs();
      const iat = Math.floor(at / 1000);
      const jti = newTokenId();
      const record: TokenRecord = Object.freeze({
        id: jti,
        kind: 'session' as const,
        ownerId: id,
        name,
        description: null,
        scopes: null,
        parentId: null,
        createdAt: new Date(iat * 1000),
        expiresAt: new Date((iat + sec) * 1000),
        revokedAt: null,
        committerIdentity: null,
      });
      const token = await mintToken(opts.keys, { kind: 'session', iss: opts.issuer, sub: id, jti, iat, exp: iat + sec });
      // Stored before it is handed out: a session the store never took would be refused on its first request.
      await insertNew(store, call, record, at);
      events?.emit(createdEvent(new Date(at), SERVER_ACTOR, record));
      return token;
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
      await insertNew(store, call, record, at);
      events?.emit(createdEvent(new Date(at), SERVER_ACTOR, record));
      return token;
    },
  };
}
