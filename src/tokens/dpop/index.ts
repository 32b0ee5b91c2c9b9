/**
 * DPoP proofs at a resource (RFC 9449): the proof check and the memory replay cache.
 * @module
 */
export { DPOP_ALGORITHMS, checkProof, proofText, type ProofContext } from './proof';
export { ReplayCache } from './replay';
