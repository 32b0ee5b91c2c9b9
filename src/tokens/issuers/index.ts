/**
 * Trusted issuers (T10): identity providers whose JWT access tokens this service
 * accepts as sessions. Options, discovery, remote key sets and verification.
 * @module
 */
export type { TrustedIssuer } from './types';
export { ISSUER_ALGORITHMS } from './options';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export type { IssuerConfig, IssuerClaims } from './types';
export { checkTrustedIssuers } from './options';
export { IssuerVerifier } from './verify';
export { KEYS_MAX_AGE_MS, KEY_COOLDOWN_MS, STALE_KEYS_MS } from './keys';
export { RETRY_AFTER_FAILURE_MS } from './discovery';
export { checkScopeReading, userIdPrefixOf } from './reading';
export { OIDC_SCOPES, scopePermissions } from './scope';
