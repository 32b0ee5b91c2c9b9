/**
 * The reference server of `svc serve`: a whole server on the public API of
 * svc-auth (it imports only `svc-auth` and `svc-auth/<subpath>`, and in
 * input.ts the HTTP layer's body reader; lint checks it), handed its `Auth`, its things and its log by whoever runs it.
 * @module
 */
export { createReferenceServer, type ReferenceServer } from './server';
export type { PathHandler, Thing, ThingStore } from './types';
