/**
 * The caller's credential (C2) and signing in with it: `SVC_TOKEN`, else the
 * session saved by `svc auth login`.
 * @module
 */
import { AuthenticationError, UnavailableError } from '../../errors';
import type { Principal } from '../../core/policy';
import type { DevInstance, SavedOAuth } from '../dev';
import { isDue, renew } from './oauth';
import type { CliIO } from './output';
import { keyOfToken, signProof } from './proof-key';

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
export async function credential(io: CliIO, dev: DevInstance): Promise<{ token: string; source: CredentialSource; oauth?: SavedOAuth }> {
  const fromEnv = io.env.SVC_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') return { token: fromEnv.trim(), source: 'SVC_TOKEN' };
  const saved = await dev.session.read();
  if (saved !== undefined) return { token: saved.token, source: 'session', ...(saved.oauth === undefined ? {} : { oauth: saved.oauth }) };
  throw new AuthenticationError('missing', "not logged in: run 'svc auth login' (or 'svc auth login --user <id>') or set SVC_TOKEN");
}

const REASON_TEXT: Record<string, string> = {
  missing: 'no credential',
  malformed: 'it is not a token',
  signature: 'it is not a valid token of this instance',
  expired: 'it has expired',
  revoked: 'it has been revoked',
  unknown: 'it is not known to this instance',
  type: 'this kind of token is not accepted here',
  dpop: 'its DPoP proof was refused',
};

// The URL of the proofs the CLI makes for itself: the instance is in this process, reached by no URL.
const SELF_URL = 'http://svc.cli/';

/**
 * Authenticate `token` on the instance; a token bound to a key is taken with a proof by that key
 * (`SVC_TOKEN_KEY`, or the key `svc token create --bind-key` kept), as a server would take it.
 */
async function authenticateOwn(io: CliIO, dev: DevInstance, token: string): Promise<Principal> {
  try {
    return await dev.auth.authenticate(token);
  } catch (err) {
    if (!(err instanceof AuthenticationError) || err.reason !== 'bound') throw err;
    const key = await keyOfToken(io.env, dev, token);
    if (key === undefined) throw err;
    const dpop = await signProof(key, { method: 'GET', url: SELF_URL, token, nowMs: dev.now().getTime() });
    return dev.auth.authenticateRequest(new Request(SELF_URL, { headers: { authorization: `DPoP ${token}`, dpop } }));
  }
}

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
  const { token, source, oauth } = await credential(io, dev);
  if (oauth !== undefined) return { principal: await signInOAuth(dev, token, oauth), source };
  try {
    return { principal: await authenticateOwn(io, dev, token), source };
  } catch (err) {
    if (!(err instanceof AuthenticationError)) throw err;
    const what = source === 'SVC_TOKEN' ? 'SVC_TOKEN was' : 'the saved session (svc auth login) was';
    // A saved session that no longer works (expired, revoked, or saved before sessions had records) is replaced by logging in again.
    const again = err.reason === 'expired' || err.reason === 'signature' || err.reason === 'revoked' || err.reason === 'unknown';
    const hint = source === 'session' && again ? ": run 'svc auth login --user <id>' again" : '';
    // A bound token's refusal says what is missing (its key, or which key), in the library's or the key finder's words.
    const why = err.reason === 'bound' ? err.message : (REASON_TEXT[err.reason] ?? err.reason);
    throw new AuthenticationError(err.reason, `${what} not accepted: ${why}${hint}`, { cause: err });
  }
}

/** Why a saved OAuth session is refused here, in words, with what to do. */
function oauthRefusal(err: AuthenticationError, server: string): string {
  switch (err.reason) {
    case 'unknown':
      // The token verified with the server's keys, but its record is not in this SVC_HOME's store.
      return `the saved session was issued by ${server}, whose session records are not in this SVC_HOME: use the SVC_HOME of that server's 'svc serve', or run 'svc auth login' at a server on this SVC_HOME`;
    case 'revoked':
      return "the saved session was revoked (signed out elsewhere?): run 'svc auth login' to sign in again";
    case 'expired':
      return "the saved session has expired: run 'svc auth login' to sign in again";
    default:
      return `the saved session (signed in at ${server}) is not accepted here (${REASON_TEXT[err.reason] ?? err.reason}): run 'svc auth login' to sign in again`;
  }
}

/**
 * A saved session of an authorization server: renewed first when its access token
 * has expired (or once more when the instance finds it expired), then verified by the
 * instance, which trusts that server (its keys from the server's JWKS, the record in
 * this SVC_HOME's store).
 */
async function signInOAuth(dev: DevInstance, saved: string, oauth: SavedOAuth): Promise<Principal> {
  let token = isDue(oauth, Date.now()) ? await renew(dev, saved) : saved;
  for (let attempt = 0; ; attempt++) {
    try {
      return await dev.auth.authenticate(token);
    } catch (err) {
      if (err instanceof AuthenticationError && err.reason === 'expired' && attempt === 0) {
        token = await renew(dev, token);
        continue;
      }
      if (err instanceof AuthenticationError) throw new AuthenticationError(err.reason, oauthRefusal(err, oauth.server), { cause: err });
      if (err instanceof UnavailableError) {
        const why = `the saved session is checked with the keys of ${oauth.server}: start 'svc serve' on this SVC_HOME, or sign in again`;
        throw new UnavailableError(`${err.message}; ${why}`, { cause: err });
      }
      throw err;
    }
  }
}
