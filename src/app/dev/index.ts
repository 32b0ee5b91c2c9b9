/**
 * The dev instance of `svc` in `SVC_HOME`: its keys, stores, saved session and
 * the reference server's things, shared by the CLI and `svc serve`.
 * @module
 */
export { openInstance, DEV_ISSUER, type CliEnv, type DevInstance, type OpenOptions } from './instance';
export type { SavedSession, SavedOAuth } from './session-file';
export { createDevServer } from './server';
export type { ExpirySweep } from './sweeper';
export { recordServe, serveFile } from './serve-file';

/** @internal for the folders above and the tests (each imports this folder through its index); the package root decides what is public. */
export { secureHome } from './home-perms';
