/**
 * The reference dev server of `svc serve`: node:http routes and `/mcp` over the
 * dev instance.
 * @module
 */
export { createDevServer } from './server';
