/**
 * What `createAuth` does off the request path: audit events, last-used times,
 * and `auth.flush()` waiting for both.
 * @module
 */
export { EventDispatcher } from './events';
export type { AuthEvent, AuthEventHook, EventActor, TokenExpiringEvent } from './events';
export type { FlushOptions } from './flush';
export type { ServiceAccountEvent, ServiceAccountSnapshot } from './account-types';

/** @internal for the folders above (each imports this folder through its index); the package root decides what is public. */
export { deniedReporter, revokedEvent, SERVER_ACTOR, createdEvent, requestedEvent, actorOf, leakedEvent } from './events';
export { flushDeadline, flushWithin } from './flush';
export { LastUsedRecorder, recorderFor } from './last-used';
