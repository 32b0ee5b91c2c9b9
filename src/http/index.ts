/**
 * The HTTP layer (7): error answers per H2, response writers and route guards.
 * Framework-agnostic: fetch `Request`/`Response` and node `IncomingMessage`/`ServerResponse`.
 * @module
 */
export { httpError, decisionError, type HttpError, type HttpErrorBody, type HttpErrorOptions } from './errors';
export { EXPIRATION_HEADER, type GuardOptions } from './gate';
export { principalOf } from './attach';
export { errorResponse, sendError, sendJson } from './respond';
export { requireAuth, withAuth, type AuthCheck, type NodeMiddleware, type AuthedFetchHandler } from './middleware';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export { adapterGate, adapterRoute, errorAnswerer, notAdmitted, type ErrorHandlerOptions, type PermissionOptions } from './adapter';
export { admit, expiration, failed, finish, makeGate, makeRoute, permit, type GateObserver } from './gate';
export { attach, attachedTo } from './attach';
export { nodeGuard } from './middleware';
export { keptOnError, writeAnswer } from './respond';
