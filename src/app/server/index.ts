/**
 * The reference dev server of `svc serve`: node:http routes and `/mcp` over the
 * dev instance.
 * @module
 */
export { createDevServer } from './server';

/** @internal for the folders above and the tests (each imports this folder through its index); the package root decides what is public. */
export type { DevServer } from './server';
