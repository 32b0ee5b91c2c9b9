/**
 * Trusted issuers (T10): identity providers whose JWT access tokens this service
 * accepts as sessions. Options, discovery, remote key sets and verification.
 * @module
 */
export type { TrustedIssuer } from './types';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export type { IssuerConfig, IssuerClaims } from './types';
export { checkTrustedIssuers } from './options';
export { IssuerVerifier } from './verify';
export { IssuerKeys } from './keys';
export { verifyIssuerJwt, decodeObject } from './jwt';
export { urlProblem, ISSUER_ALGORITHMS } from './options';
