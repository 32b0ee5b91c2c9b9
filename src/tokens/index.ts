/**
 * The tokens layer (4): key rings, minting and verifying svc-auth JWTs, PAT
 * detection, and token lifetimes. Internal helpers (ring state) stay unexported here.
 * @module
 */
export type { TokenKind, KeyAlgorithm, KeyRing, TokenClaims, JWK } from './types';
export { generateKeyRing, importKeyRing } from './keys';
export { newTokenId } from './claims';
export { mintToken } from './mint';
export { TokenVerifier, MAX_TOKEN_CHARS } from './verify';
export { TOKEN_PATTERN, TOKEN_PREFIX, findTokens } from './pattern';
export { redactTokens } from './redact';
export { LIFETIMES, parsePatExpiry, parseShortDuration } from './duration';
export { bearerFromRequest, type BearerRequest, type NodeLikeRequest } from './bearer';
export type { TrustedIssuer } from './issuers';
export { DPOP_ALGORITHMS } from './dpop';

/** @internal for the layers above (each folder imports another through its index); the package root decides what is public. */
export { isKeyRing } from './keys';
export { expiredClaimsOf } from './verify';
export { isHeaderProblem, accessTokenFromRequest, bearerTextFromRequest, checkBearerText } from './bearer';
export {
  bindingThumbprint,
  checkProof,
  dpopNonces,
  isDpopValue,
  isNonceText,
  proofText,
  ReplayCache,
  type DpopCredential,
  type DpopNonces,
} from './dpop';
export { checkTrustedIssuers, IssuerVerifier, type IssuerConfig, type IssuerClaims } from './issuers';
export { IssuerKeys, verifyIssuerJwt, decodeObject, urlProblem, ISSUER_ALGORITHMS } from './issuers';
