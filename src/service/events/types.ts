/**
 * The audit events of `createAuth({ onEvent })`, as types. See events.ts for
 * how they are delivered.
 * @module
 */
import type { AuthenticationReason } from '../../errors';
import type { Scope } from '../../core/scopes';
import type { TokenKind } from '../../tokens';
import type { OrgPolicyChangedEvent, TokenOrgDecisionEvent, TokenRequestedEvent } from './org-types';
import type { ServiceAccountEvent } from './account-types';
import type { EventActor } from './actor';

export type { EventActor } from './actor';

/**
 * A PAT, a component token or a session was created (`token.kind` says which;
 * a session is issued by server code, so its actor is `server`).
 *
 * @example
 * ```ts
 * if (e.type === 'token.created') log(e.token.name, e.token.expiresAt);
 * ```
 */
export interface TokenCreatedEvent {
  readonly type: 'token.created';
  readonly at: Date;
  readonly actor: EventActor;
  readonly token: {
    readonly id: string;
    readonly name: string;
    readonly kind: 'pat' | 'component' | 'session';
    readonly ownerId: string;
    readonly parentId: string | null;
    readonly expiresAt: Date;
    /** `null`: the owner's full access. */
    readonly scopes: readonly Scope[] | null;
  };
}

/**
 * A token was revoked; `revokedIds` lists every record newly revoked by the
 * cascade (T6), the token itself first when it was not already revoked.
 *
 * @example
 * ```ts
 * if (e.type === 'token.revoked') log(e.tokenId, e.revokedIds.length);
 * ```
 */
export interface TokenRevokedEvent {
  readonly type: 'token.revoked';
  readonly at: Date;
  readonly actor: EventActor;
  readonly tokenId: string;
  readonly revokedIds: readonly string[];
}

/**
 * `authenticate` refused a credential, or `authenticateRequest` refused the
 * request's `Authorization` header before any token was read (reason
 * `missing` or `malformed`, actor `unknown`), or a valid token was used from
 * an address its `allowedIps` do not hold (reason `ip`: the error is a
 * `ForbiddenError`, answered 403, and the actor names the token). `actor.userId` is set when the
 * signature verified and the token was still refused (revoked, expired, not
 * in the store), and `actor.tokenId` too (every kind has a record, sessions
 * included): a revoked or expired token still in use can be traced. `null` otherwise.
 *
 * @example
 * ```ts
 * if (e.type === 'auth.failed' && e.reason === 'revoked') alert(e.actor.tokenId);
 * ```
 */
export interface AuthFailedEvent {
  readonly type: 'auth.failed';
  readonly at: Date;
  readonly actor: EventActor;
  readonly reason: AuthenticationReason | 'ip';
}

/**
 * An authenticated principal was refused an operation (reported by the HTTP
 * guards and adapters, or by your own code through `reportDenied`).
 *
 * @example
 * ```ts
 * if (e.type === 'access.denied') log(e.actor.userId, e.resource, e.permission, e.reason);
 * ```
 */
export interface AccessDeniedEvent {
  readonly type: 'access.denied';
  readonly at: Date;
  readonly actor: EventActor;
  readonly resource: string;
  readonly permission: string;
  readonly thingName: string | null;
  readonly reason: 'invalid' | 'role' | 'policy' | 'scope' | 'thing';
}

/**
 * A PAT expires soon: `auth.sweepExpiring` found it active and expiring within
 * `withinDays` days, and had not warned about it for that threshold (or a
 * shorter one) before. Given once per token and threshold, whichever server
 * sweeps. The actor is `server`.
 *
 * @example
 * ```ts
 * if (e.type === 'token.expiring') alert(e.token.ownerId, `${e.token.name} expires ${e.token.expiresAt.toISOString()}`);
 * ```
 */
export interface TokenExpiringEvent {
  /** The event's kind. */
  readonly type: 'token.expiring';
  /** When the sweep found it. */
  readonly at: Date;
  /** Always `server`: a sweep is server-side work. */
  readonly actor: EventActor;
  /** The expiring token, as its record says. */
  readonly token: {
    /** Its id (the JWT `jti`); never its value. */
    readonly id: string;
    /** The name its owner gave it. */
    readonly name: string;
    /** Always `pat`: only PATs are swept. */
    readonly kind: 'pat';
    /** Whose it is: the user to tell. */
    readonly ownerId: string;
    /** The PAT that created it, or `null`. */
    readonly parentId: string | null;
    /** When it stops working. */
    readonly expiresAt: Date;
  };
  /** The warning threshold, in days: the token expires within this many days of `at`. */
  readonly withinDays: number;
}

/**
 * A token reported as leaked (`auth.reportLeaked`, the credential revocation
 * endpoint, GitHub secret scanning) was active and is now revoked, with its
 * whole subtree (T6). It is the revocation's only event: no `token.revoked`
 * accompanies it. `actor` is `server` (the reporter is anonymous); `source`
 * says who reported it and `url`, when known, where it was found. Never the
 * token value.
 *
 * @example
 * ```ts
 * if (e.type === 'token.leaked') alert(e.token.ownerId, `${e.token.name} was found at ${e.url ?? e.source} and revoked`);
 * ```
 */
export interface TokenLeakedEvent {
  /** The event's kind. */
  readonly type: 'token.leaked';
  /** When the token was revoked. */
  readonly at: Date;
  /** Always `server`: whoever reported the token is not known. */
  readonly actor: EventActor;
  /** Who reported it: the `source` given to `reportLeaked` (`'http'`, `'github'`, ...). */
  readonly source: string;
  /** Where it was found (the `url` of a GitHub match), or `null`. */
  readonly url: string | null;
  /** The reported token, as its record says. */
  readonly token: {
    /** Its id (the JWT `jti`); never its value. */
    readonly id: string;
    /** The name its owner gave it. */
    readonly name: string;
    /** `pat`, `component` or `session`. */
    readonly kind: TokenKind;
    /** Whose it is: the user to tell. */
    readonly ownerId: string;
    /** The PAT that created it, or `null`. */
    readonly parentId: string | null;
  };
  /** Every id the cascade newly revoked (T6): the token itself first, then its descendants. */
  readonly revokedIds: readonly string[];
}

/**
 * Every audit event, discriminated by `type`.
 *
 * @example
 * ```ts
 * import { createAuth, type AuthEvent } from 'svc-auth';
 * const onEvent = (e: AuthEvent): void => console.log(e.type, e.at.toISOString(), e.actor.tokenId);
 * ```
 */
export type AuthEvent =
  | TokenCreatedEvent
  | TokenRevokedEvent
  | TokenExpiringEvent
  | AuthFailedEvent
  | AccessDeniedEvent
  | TokenLeakedEvent
  | TokenRequestedEvent
  | TokenOrgDecisionEvent
  | OrgPolicyChangedEvent
  | ServiceAccountEvent;

/**
 * The `onEvent` hook. May be async; its result never changes a decision.
 *
 * @example
 * ```ts
 * const hook: AuthEventHook = async (e) => { await audit.insert(e); };
 * ```
 */
export type AuthEventHook = (event: AuthEvent) => void | Promise<void>;
