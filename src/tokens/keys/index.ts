/**
 * Key rings: the signing keys of one deployment (generated or imported as
 * private JWKs), the key that signs, and the keys that verify.
 * @module
 */
export { generateKeyRing, importKeyRing, isKeyRing } from './keyring';

/** @internal for the folders above and the tests (each imports this folder through its index); the package root decides what is public. */
export { lowS, isLowS } from './ecdsa';
export { signingKey, findKey, ringVersion } from './keyring';
export { KID_PATTERN } from './ring-key';
