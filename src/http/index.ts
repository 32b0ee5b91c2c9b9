/**
 * The HTTP layer (7): error answers per H2, response writers and route guards.
 * Framework-agnostic: fetch `Request`/`Response` and node `IncomingMessage`/`ServerResponse`.
 * @module
 */
export { httpError, decisionError, type HttpError, type HttpErrorBody } from './errors';
export { errorResponse, sendError, sendJson } from './respond';
export { requireAuth, withAuth, principalOf, type AuthCheck, type NodeMiddleware, type AuthedFetchHandler } from './middleware';
