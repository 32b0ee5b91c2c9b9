/**
 * DPoP proofs at a resource (RFC 9449): the proof check and the memory replay cache.
 * @module
 */
export { DPOP_ALGORITHMS, checkProof, proofText } from './proof';
export { ReplayCache } from './replay';
export { DPOP_SCHEME, hasDpopScheme, isDpopValue, readNamed, type DpopCredential } from './header';
export { bindingThumbprint } from './binding';
export { dpopNonces, isNonceText, type DpopNonces } from './nonce';
