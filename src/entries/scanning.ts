/**
 * `svc-auth/scanning`: finding svc-auth personal access tokens in text, for
 * secret scanners, log pipelines and pre-commit hooks. Matches the shape of a
 * PAT only: it verifies nothing and needs no key ring.
 *
 * `TOKEN_PATTERN` is also exported by `svc-auth`.
 *
 * @example
 * ```ts
 * import { findTokens, redactTokens } from 'svc-auth/scanning';
 * const leaked = findTokens(logText); // every svc-auth PAT in the text
 * const safe = redactTokens(logLine); // the line with each PAT replaced by [redacted]
 * ```
 * @module
 */
export { TOKEN_PATTERN, TOKEN_PREFIX, findTokens, redactTokens } from '../tokens';
