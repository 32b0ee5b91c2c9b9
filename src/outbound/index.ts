/**
 * Outbound requests: the one bounded JSON fetch every part of the library
 * uses to read another party's server. Not pure (it calls the global `fetch`),
 * so beside the core rather than in it; it imports only the network rules of
 * `core/network` and the errors, so tokens, the leak endpoints and the CLI can
 * all use it.
 * @module
 */
export { fetchJson, FETCH_TIMEOUT_MS } from './fetch-json';
