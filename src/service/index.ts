/**
 * The service layer (6): `createAuth` and the helpers its users need.
 * @module
 */
export { createAuth } from './auth';
export { isIdentityWref, IDENTITY_PATTERN, defaultIdentity } from './identity';
export { bearerFromRequest, parseAuthorization } from './bearer';
export type { Auth, AuthOptions, MembershipSource, TokenApi, TokenInfo, CreateTokenInput } from './types';
