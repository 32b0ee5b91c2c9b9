/**
 * PostgreSQL and driver failures as the library's errors: every failure is
 * `UnavailableError` (fail closed, T5) with the driver's error as `cause` and
 * no SQL or values in the message, except a duplicate id (`ConflictError`)
 * and the library's own errors.
 * @module
 */
import { ConflictError, SvcAuthError, UnavailableError } from '../../errors';

/** SQLSTATE classes and codes that mean the connection or server, not the statement, failed. */
const CONNECTION_STATES = /^(08|57P0[1-4]|53)/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * Map a driver failure to the library's errors: everything is unavailable (fail closed), except our own.
 * `label` names the store in the message (`token store`, `membership store`).
 */
export function toStoreError(err: unknown, label = 'token store'): SvcAuthError {
  if (err instanceof SvcAuthError) return err;
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  let what = 'database error';
  if (code === '57014') what = 'statement timed out';
  else if (code === '42P01') what = `${label === 'token store' ? 'token' : 'its'} table missing (run migrate())`;
  else if (code === '40P01') what = 'deadlock detected';
  else if (code === '23505') return new ConflictError('a token record with this id already exists', { cause: err });
  else if (typeof code === 'string' && (CONNECTION_STATES.test(code) || NETWORK_CODES.has(code))) what = 'database unreachable';
  else if (err instanceof Error && /connection|terminat|timeout/i.test(err.message)) what = 'database unreachable';
  return new UnavailableError(`${label} unavailable: ${what}`, { cause: err });
}
