/**
 * The caller's credential (C2) and signing in with it: `SVC_TOKEN`, else the
 * session saved by `svc auth login`.
 * @module
 */
import { AuthenticationError } from '../../errors';
import type { Principal } from '../../core/policy';
import type { DevInstance } from '../dev';
import type { CliIO } from './output';

/** Where the credential came from. */
export type CredentialSource = 'SVC_TOKEN' | 'session';

/**
 * The caller's credential (C2): `SVC_TOKEN` when set and non-empty, else the
 * session saved by `svc auth login`.
 *
 * @throws AuthenticationError reason `missing` when there is neither.
 * @example
 * ```ts
 * const { token, source } = await credential(io, dev);
 * ```
 */
export async function credential(io: CliIO, dev: DevInstance): Promise<{ token: string; source: CredentialSource }> {
  const fromEnv = io.env.SVC_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') return { token: fromEnv.trim(), source: 'SVC_TOKEN' };
  const saved = await dev.session.read();
  if (saved !== undefined) return { token: saved.token, source: 'session' };
  throw new AuthenticationError('missing', "not logged in: run 'svc auth login --user <id>' or set SVC_TOKEN");
}

const REASON_TEXT: Record<string, string> = {
  missing: 'no credential',
  malformed: 'it is not a token',
  signature: 'it is not a valid token of this instance',
  expired: 'it has expired',
  revoked: 'it has been revoked',
  unknown: 'it is not known to this instance',
  type: 'this kind of token is not accepted here',
};

/**
 * Authenticate the caller's credential. A refusal names its source and reason
 * (never the token): `SVC_TOKEN was not accepted: it has been revoked`.
 *
 * @throws AuthenticationError as {@link credential} and `Auth.authenticate` do.
 * @example
 * ```ts
 * const { principal } = await signIn(io, dev);
 * const client = dev.auth.client(principal);
 * ```
 */
export async function signIn(io: CliIO, dev: DevInstance): Promise<{ principal: Principal; source: CredentialSource }> {
  const { token, source } = await credential(io, dev);
  try {
    return { principal: await dev.auth.authenticate(token), source };
  } catch (err) {
    if (!(err instanceof AuthenticationError)) throw err;
    const what = source === 'SVC_TOKEN' ? 'SVC_TOKEN was' : 'the saved session (svc auth login) was';
    // A saved session that no longer works (expired, revoked, or saved before sessions had records) is replaced by logging in again.
    const again = err.reason === 'expired' || err.reason === 'signature' || err.reason === 'revoked' || err.reason === 'unknown';
    const hint = source === 'session' && again ? ": run 'svc auth login --user <id>' again" : '';
    throw new AuthenticationError(err.reason, `${what} not accepted: ${REASON_TEXT[err.reason] ?? err.reason}${hint}`, { cause: err });
  }
}
