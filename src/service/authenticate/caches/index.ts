/**
 * The request path's caches: compiled grants and scope layers, reused only for
 * inputs equal to those they were built from.
 * @module
 */
export { grantSource, type Grants } from './grants';
