/**
 * The `svc` program (its entry is main.ts): what the other parts of the app
 * take from it.
 * @module
 */
export { packageVersion } from './version';
