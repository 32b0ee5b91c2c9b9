/**
 * The HTTP layer (7): error answers per H2, response writers, the principal a
 * guard attached to a request, and the adapter kit that every guard and
 * framework adapter (src/adapters/*) is a thin translation over.
 * Framework-agnostic: fetch `Request`/`Response` and node `IncomingMessage`/`ServerResponse`.
 * @module
 */
export { errorAnswer, decisionError, type ErrorAnswerOptions } from './errors';
export type { ErrorAnswer, ErrorAnswerBody, ErrorAnswerReason } from './answer';
export { EXPIRATION_HEADER, type GuardOptions, type AdmissionOptions } from './gate';
export type { GuardDecision } from './decision';
export { principalOf } from './attach';
export { errorResponse, sendError, sendJson } from './respond';
export type { AuthCheck, PermissionOptions, ErrorHandlerOptions } from './options';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export { adapterKit } from './kit';
export { nodeResponse } from './respond';
export { assertUnread, checkMaxBodyBytes, readFetchBytes, readNodeBody, readNodeBytes, type RawBody } from './body';
export { refusalTextOf } from './errors';
export { answerResponse, closing, endpointOf, guardOnError, JSON_HEADERS, writeAnswer, type Answer, type Outcome } from './answer';
