/**
 * What the request path of one `Auth` instance gives the rest of it (`createAuthenticator`).
 * @module
 */
import type { Principal } from '../../core/policy';
import type { TokenRecord } from '../../stores';
import type { BearerRequest } from '../../tokens';
import type { PrincipalState } from '../internals';
import type { LastUsedRecorder } from '../events';
import type { AuthenticateRequestOptions, RequestOrigin } from '../contract';
import type { ChainClaims } from './chain';

/** @internal what one Auth instance's request path gives the rest of it. */
export interface Authenticator {
  readonly authenticate: (token: string, origin?: RequestOrigin) => Promise<Principal>;
  /** `authenticate` on the request's bearer header; a refused header is refused (and reported) here. */
  readonly authenticateRequest: (req: BearerRequest, options?: AuthenticateRequestOptions) => Promise<Principal>;
  /** The same in the caller's turn (the guards): the principal at once when nothing waited; throws a refusal met before any wait. */
  readonly authenticateRequestNow: (req: BearerRequest, address: unknown) => Principal | Promise<Principal>;
  /** A session principal for a user the server signed in itself; roles read now. */
  readonly principalFor: (userId: string) => Promise<Principal>;
  /** The grant of a principal this instance made, else `undefined` (no allocation). */
  readonly grantOf: (p: unknown) => unknown;
  /** The state of a principal this instance made; `ValidationError` for anything else. */
  readonly stateOf: (p: Principal) => PrincipalState;
  /** Read and check a token's record chain now (T5). */
  readonly readValidChain: (claims: ChainClaims, at: number) => Promise<readonly TokenRecord[]>;
  /** Re-read a principal's token chain and check it is still valid; `null` without a token (`ServiceContext.recheck`). */
  readonly recheck: (p: Principal) => Promise<readonly TokenRecord[] | null>;
  /** The last-used recorder, when the store can record it. */
  readonly recorder: LastUsedRecorder | null;
}
