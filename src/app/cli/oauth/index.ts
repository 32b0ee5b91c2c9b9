/**
 * The CLI's side of OAuth: which server, its endpoints, the device sign-in,
 * and renewing or revoking the saved session. Plain fetch of the RFC 8628,
 * 6749 and 7009 endpoints (a few form posts), bounded like every read of
 * another party's answers; oidc-provider is the server.
 * @module
 */
export { discover, findServer, type ServerSource } from './server';
export { deviceLogin } from './device';
export { workloadSignIn } from './workload';
export { isDue, renew, revokeAtServer, savedFrom, subjectOf } from './session';
