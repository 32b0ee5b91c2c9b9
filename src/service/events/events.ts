/**
 * Audit events (`createAuth({ onEvent })`): what happened to tokens and who was
 * refused, delivered off the request path.
 *
 * Events are queued and handed to the hook one at a time from a later turn of
 * the event loop. A hook that throws or rejects is counted and skipped; an async
 * hook slower than its deadline is left behind; when the queue is full new
 * events are dropped and counted. No event ever carries a token value (T8):
 * every string of an event is redacted as the logs are, on delivery.
 * @module
 */
import type { DenyReason, Principal } from '../../core/policy';
import type { TokenRecord } from '../../stores';
import type { AuthEvent, AuthEventHook, EventActor, TokenCreatedEvent, TokenLeakedEvent, TokenRevokedEvent } from './types';
import type { TokenRequestedEvent } from './org-types';
import { redactEvent } from './redact';

export type {
  AuthEvent,
  AuthEventHook,
  EventActor,
  TokenCreatedEvent,
  TokenExpiringEvent,
  TokenLeakedEvent,
  TokenRevokedEvent,
} from './types';

/**
 * Counters of an {@link EventDispatcher}.
 *
 * @example
 * ```ts
 * dispatcher.stats; // { delivered: 10, failed: 0, timedOut: 0, dropped: 0 }
 * ```
 */
export interface EventStats {
  /** Events handed to the hook. */
  delivered: number;
  /** Hook calls that threw or rejected. */
  failed: number;
  /** Async hook calls still pending at their deadline (delivery moved on). */
  timedOut: number;
  /** Events not queued because the queue was full. */
  dropped: number;
}

const later: (fn: () => void) => void = typeof setImmediate === 'function' ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0);

/**
 * Queue and deliver events to a hook, off the request path. One per `Auth` instance.
 *
 * @example
 * ```ts
 * const d = new EventDispatcher((e) => console.log(e.type), { maxQueue: 1000, hookTimeoutMs: 5000 });
 * d.emit(event);   // returns at once
 * await d.flush(); // delivered
 * ```
 */
export class EventDispatcher {
  readonly stats: EventStats = { delivered: 0, failed: 0, timedOut: 0, dropped: 0 };
  readonly #hook: AuthEventHook;
  readonly #maxQueue: number;
  readonly #hookTimeoutMs: number;
  #queue: AuthEvent[] = [];
  #draining: Promise<void> | undefined;

  constructor(hook: AuthEventHook, options: { maxQueue?: number; hookTimeoutMs?: number } = {}) {
    this.#hook = hook;
    this.#maxQueue = options.maxQueue ?? 1_000;
    this.#hookTimeoutMs = options.hookTimeoutMs ?? 5_000;
  }

  /** Events waiting for the hook. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Queue an event; never throws, never waits. */
  emit(event: AuthEvent): void {
    if (this.#queue.length >= this.#maxQueue) {
      this.stats.dropped++;
      return;
    }
    this.#queue.push(event);
    if (this.#draining === undefined) {
      this.#draining = new Promise<void>((resolve) => later(() => void this.#drain().finally(resolve)));
    }
  }

  /** Resolve once every event queued so far was delivered (or failed, or timed out). Never rejects. */
  async flush(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      let event = this.#queue.shift();
      while (event !== undefined) {
        await this.#deliver(event);
        event = this.#queue.shift();
      }
    } finally {
      this.#draining = undefined;
    }
  }

  async #deliver(event: AuthEvent): Promise<void> {
    this.stats.delivered++;
    let result: unknown;
    try {
      // Here, off the request path, rather than in `emit`: the request pays for a push only.
      result = this.#hook(redactEvent(event));
    } catch {
      this.stats.failed++;
      return;
    }
    if (typeof result !== 'object' || result === null || typeof (result as { then?: unknown }).then !== 'function') return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.#hookTimeoutMs);
      if (typeof timer === 'object' && timer !== null && 'unref' in timer) timer.unref();
    });
    try {
      const outcome = await Promise.race([Promise.resolve(result as Promise<unknown>).then(() => 'done' as const), deadline]);
      if (outcome === 'late') this.stats.timedOut++;
    } catch {
      this.stats.failed++;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The actor of a principal returned by `authenticate`.
 *
 * @example
 * ```ts
 * actorOf(await auth.authenticate(token)); // { kind: 'pat', userId: 'alice', tokenId: '…', tokenName: 'ci' }
 * ```
 */
export function actorOf(p: Principal): EventActor {
  return Object.freeze({ kind: p.kind, userId: p.userId, tokenId: p.tokenId ?? null, tokenName: p.tokenName ?? null });
}

/**
 * The actor of server-side administration (`revokeToken`, `issueComponentToken`).
 *
 * @example
 * ```ts
 * events.emit(revokedEvent(new Date(), SERVER_ACTOR, tokenId, revokedIds));
 * ```
 */
export const SERVER_ACTOR: EventActor = Object.freeze({ kind: 'server', userId: null, tokenId: null, tokenName: null });

/** What the `access.denied` reporter of an `Auth` needs. */
interface DeniedSource {
  readonly events: EventDispatcher;
  readonly nowMs: () => number;
  /** Did this `Auth` make the principal? */
  readonly owns: (p: unknown) => boolean;
}

/** Who is reported for a principal the `Auth` did not make: nothing about it was checked here. */
const UNKNOWN_ACTOR: EventActor = Object.freeze({ kind: 'unknown', userId: null, tokenId: null, tokenName: null });

/**
 * @internal The `access.denied` reporter of one `Auth` (built by `createAuth`; `reportDenied` finds it through
 * the `Auth`'s internals and checks the arguments first).
 *
 * @example
 * ```ts
 * const denied = deniedReporter({ events: dispatcher, nowMs, owns: (p) => grantOf(p) !== undefined });
 * ```
 */
export function deniedReporter(
  source: DeniedSource,
): (principal: Principal, resource: string, permission: string, reason: DenyReason, thingName?: string) => void {
  const { events, nowMs, owns } = source;
  return (principal, resource, permission, reason, thingName) =>
    events.emit(
      Object.freeze({
        type: 'access.denied',
        at: new Date(nowMs()),
        // A copy, or another Auth's principal, is denied (`invalid`) and reported,
        // but what it says about itself is not repeated as if it were known.
        actor: owns(principal) ? actorOf(principal) : UNKNOWN_ACTOR,
        // Request input: bounded so that a hostile request cannot bloat the queue.
        resource: resource.slice(0, 1024),
        permission: permission.slice(0, 64),
        thingName: typeof thingName === 'string' ? thingName.slice(0, 1024) : null,
        reason,
      }),
    );
}

/**
 * @internal The `token.created` event of a record just stored.
 *
 * @example
 * ```ts
 * events.emit(createdEvent(new Date(), actorOf(p), record));
 * ```
 */
export function createdEvent(at: Date, actor: EventActor, record: TokenRecord): TokenCreatedEvent {
  return Object.freeze({
    type: 'token.created',
    at,
    actor,
    token: Object.freeze({
      id: record.id,
      name: record.name,
      kind: record.kind,
      ownerId: record.ownerId,
      parentId: record.parentId,
      expiresAt: new Date(record.expiresAt.getTime()),
      scopes: record.scopes,
    }),
  });
}

/**
 * @internal The `token.requested` event of a new record for one org that must approve it, with the
 * justification its entry for that org carries.
 *
 * @example
 * ```ts
 * for (const org of rules.requested) events?.emit(requestedEvent(actorOf(p), record, org));
 * ```
 */
export function requestedEvent(actor: EventActor, record: TokenRecord, org: string): TokenRequestedEvent {
  return Object.freeze({
    type: 'token.requested',
    at: new Date(record.createdAt.getTime()),
    actor,
    org,
    token: Object.freeze({ id: record.id, name: record.name, ownerId: record.ownerId }),
    justification: record.orgAccess?.find((x) => x.org === org)?.justification ?? null,
  });
}

/**
 * @internal The `token.revoked` event.
 *
 * @example
 * ```ts
 * events.emit(revokedEvent(new Date(), SERVER_ACTOR, tokenId, await store.revoke([tokenId], at)));
 * ```
 */
export function revokedEvent(at: Date, actor: EventActor, tokenId: string, revoked: unknown): TokenRevokedEvent {
  const revokedIds = Array.isArray(revoked) ? revoked.filter((id): id is string => typeof id === 'string') : [];
  return Object.freeze({ type: 'token.revoked', at, actor, tokenId, revokedIds: Object.freeze(revokedIds) });
}

/**
 * @internal The `token.leaked` event of a reported token just revoked (`head` its record), by the server.
 *
 * @example
 * ```ts
 * events.emit(leakedEvent(new Date(), { source: 'github', url: null }, record, await store.revoke([record.id], at)));
 * ```
 */
export function leakedEvent(
  at: Date,
  by: { source: string; url: string | null },
  head: TokenRecord,
  revokedIds: readonly string[],
): TokenLeakedEvent {
  return Object.freeze({
    type: 'token.leaked',
    at,
    actor: SERVER_ACTOR,
    source: by.source,
    url: by.url,
    token: Object.freeze({ id: head.id, name: head.name, kind: head.kind, ownerId: head.ownerId, parentId: head.parentId }),
    revokedIds: Object.freeze([...revokedIds]),
  });
}
