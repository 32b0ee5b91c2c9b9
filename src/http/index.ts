/**
 * The HTTP layer (7): error answers per H2, response writers and route guards.
 * Framework-agnostic: fetch `Request`/`Response` and node `IncomingMessage`/`ServerResponse`.
 * @module
 */
export { httpError, decisionError, type HttpError, type HttpErrorBody, type HttpErrorOptions } from './errors';
export { principalOf, EXPIRATION_HEADER, type GuardOptions } from './gate';
export { errorResponse, sendError, sendJson } from './respond';
export { requireAuth, withAuth, type AuthCheck, type NodeMiddleware, type AuthedFetchHandler } from './middleware';
