/**
 * `svc-auth/testing`: helpers for testing code built on svc-auth, chiefly the
 * conformance suites for `TokenStore` and `MembershipStore` adapters. Needs
 * `vitest` (an optional peer dependency): import this subpath from test files only.
 * @module
 */
export { tokenStoreConformance, type ConformanceOptions } from './conformance';
export { membershipStoreConformance, type MembershipConformanceOptions } from './conformance';
