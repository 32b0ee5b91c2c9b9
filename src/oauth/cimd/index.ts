/**
 * Client ID Metadata Documents (MCP 2025-11-25, draft-ietf-oauth-client-id-metadata-document):
 * a client whose `client_id` is an https URL is described by the JSON document
 * at that URL. This module decides which URLs may be fetched, fetches them
 * within bounds (fetch.ts), checks the document, and remembers answers both
 * ways: a good document for as long as its Cache-Control allows (within
 * bounds), a failure for a short while (so a flood of bad client ids fetches
 * each URL once, not once per request). oidc-provider has its own CIMD support,
 * but it is https-only and refuses loopback even for a dev instance, so the
 * server resolves these client ids itself, through its storage adapter.
 * @module
 */
import { fetchDocument, FetchRefused, type FetchLimits } from './fetch';
import { isLoopbackHost } from '../../core/network';

/** @internal The resolved policy for metadata documents. */
export interface DocumentPolicy extends FetchLimits {
  /** Which document URLs may be used at all (after the scheme and address rules). */
  readonly allow: (url: URL) => boolean;
  readonly cacheMinSec: number;
  readonly cacheMaxSec: number;
  readonly failureCacheSec: number;
  readonly now: () => number;
}

/** @internal A client id that names a document which may not, or could not, be used; `reason` is safe to show. */
export class DocumentRefused extends Error {
  constructor(readonly reason: string) {
    super(`client metadata document refused: ${reason}`);
  }
}

const MAX_CLIENT_ID_LENGTH = 2048;
const CACHE_ENTRIES = 1000;

/** @internal Does `clientId` look like a metadata document URL (rather than a registered client's id)? */
export function isDocumentClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * @internal Check a client id URL against the rules that hold for every
 * server (https, or http on loopback when allowed; a path; no credentials,
 * fragment, dot segments or whitespace), then the server's own allow rule.
 */
export function checkDocumentUrl(clientId: string, policy: DocumentPolicy): URL {
  if (clientId.length > MAX_CLIENT_ID_LENGTH || /[\s\\\u0000-\u001f\u007f]/.test(clientId) || clientId.includes('#')) {
    throw new DocumentRefused('the client id is not a valid URL');
  }
  const url = URL.parse(clientId);
  if (url === null || url.href !== clientId) throw new DocumentRefused('the client id is not a URL in normal form');
  if (url.username !== '' || url.password !== '') throw new DocumentRefused('the client id URL must not hold credentials');
  if (url.pathname === '/' || /\/\.\.?(?:\/|$)/.test(url.pathname))
    throw new DocumentRefused('the client id URL needs a path without dot segments');
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:') {
    if (!(loopback && policy.allowLoopback)) throw new DocumentRefused('the client id URL must use https');
  } else if (url.protocol !== 'https:') {
    throw new DocumentRefused('the client id URL must use https');
  }
  if (loopback && !policy.allowLoopback) throw new DocumentRefused('loopback client ids are allowed on a dev instance only');
  if (!policy.allow(url)) throw new DocumentRefused('this server does not accept clients from that site');
  return url;
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

/** A JWK Set of 1 to 10 public keys (a private or symmetric member refuses it), or why not. */
function publicKeySet(value: unknown): { keys: Record<string, unknown>[] } {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (
    !Array.isArray(keys) ||
    keys.length === 0 ||
    keys.length > 10 ||
    !keys.every(
      (k) =>
        typeof k === 'object' && k !== null && typeof (k as { kty?: unknown }).kty === 'string' && !PRIVATE_MEMBERS.some((m) => m in k),
    )
  ) {
    throw new DocumentRefused('the client keys must be a JWK Set of 1 to 10 public keys');
  }
  return { keys: keys as Record<string, unknown>[] };
}

/**
 * @internal What the server takes from a document: a public client, or one that
 * authenticates with `private_key_jwt` (its keys inline in `jwks`, or at a
 * `jwks_uri` on the document's own origin, fetched here with the document's
 * limits, never by oidc-provider), code flow only, with these redirect URIs.
 */
export type DocumentClient = Record<string, unknown> & { client_id: string; redirect_uris: string[] };

/** @internal Check a fetched document and keep only the metadata this server uses. */
export function readDocument(clientId: string, text: string): DocumentClient {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new DocumentRefused('the document is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new DocumentRefused('the document is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.client_id !== clientId) throw new DocumentRefused('the document names another client_id');
  if ('client_secret' in d || 'client_secret_expires_at' in d) throw new DocumentRefused('the document must not hold a client secret');
  const method = d.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none' && method !== 'private_key_jwt')
    throw new DocumentRefused('token_endpoint_auth_method must be "none" or "private_key_jwt"');
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 20 || !uris.every((u) => typeof u === 'string' && u.length <= 2048)) {
    throw new DocumentRefused('the document needs redirect_uris: 1 to 20 URLs');
  }
  const client: DocumentClient = {
    client_id: clientId,
    redirect_uris: uris as string[],
    token_endpoint_auth_method: 'none',
    response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token'],
  };
  if (typeof d.client_name === 'string' && d.client_name.length > 0) client.client_name = d.client_name.slice(0, 200);
  if (d.application_type === 'native' || d.application_type === 'web') client.application_type = d.application_type;
  if (method === 'private_key_jwt') {
    client.token_endpoint_auth_method = 'private_key_jwt';
    if (d.jwks !== undefined) client.jwks = publicKeySet(d.jwks);
    else if (typeof d.jwks_uri === 'string' && URL.parse(d.jwks_uri)?.origin === new URL(clientId).origin) client.jwks_uri = d.jwks_uri;
    else throw new DocumentRefused("private_key_jwt needs jwks, or a jwks_uri on the document's origin");
  }
  return client;
}

/** A small map that forgets its oldest entry when full. */
class Bounded<V> {
  readonly #map = new Map<string, { value: V; until: number }>();
  get(key: string, now: number): V | undefined {
    const hit = this.#map.get(key);
    if (hit === undefined) return undefined;
    if (hit.until <= now) {
      this.#map.delete(key);
      return undefined;
    }
    return hit.value;
  }
  set(key: string, value: V, until: number): void {
    this.#map.delete(key);
    if (this.#map.size >= CACHE_ENTRIES) this.#map.delete(this.#map.keys().next().value as string);
    this.#map.set(key, { value, until });
  }
}

/**
 * @internal The resolver of document client ids: `resolve(clientId)` answers
 * the client metadata or rejects with {@link DocumentRefused}.
 */
export function metadataDocuments(policy: DocumentPolicy): { resolve(clientId: string): Promise<DocumentClient> } {
  const good = new Bounded<DocumentClient>();
  const bad = new Bounded<string>();
  const pending = new Map<string, Promise<DocumentClient>>();

  async function load(clientId: string, url: URL): Promise<DocumentClient> {
    try {
      const fetched = await fetchDocument(url, policy);
      const client = readDocument(clientId, fetched.text);
      if (typeof client.jwks_uri === 'string') {
        const keys = await fetchDocument(checkDocumentUrl(client.jwks_uri, policy), policy);
        let set: unknown;
        try {
          set = JSON.parse(keys.text);
        } catch {
          throw new DocumentRefused('the client keys are not JSON');
        }
        client.jwks = publicKeySet(set);
        delete client.jwks_uri;
      }
      const ttl = Math.min(policy.cacheMaxSec, Math.max(policy.cacheMinSec, fetched.maxAgeSec ?? policy.cacheMinSec));
      good.set(clientId, client, policy.now() + ttl * 1000);
      return client;
    } catch (err) {
      const reason = err instanceof DocumentRefused || err instanceof FetchRefused ? err.reason : 'the document could not be used';
      bad.set(clientId, reason, policy.now() + policy.failureCacheSec * 1000);
      throw new DocumentRefused(reason);
    }
  }

  return {
    resolve(clientId) {
      const now = policy.now();
      const hit = good.get(clientId, now);
      if (hit !== undefined) return Promise.resolve(structuredClone(hit));
      const failed = bad.get(clientId, now);
      if (failed !== undefined) return Promise.reject(new DocumentRefused(failed));
      let url: URL;
      try {
        url = checkDocumentUrl(clientId, policy);
      } catch (err) {
        // Refused by rule: remembered too, so that the same bad id costs nothing the next time.
        const reason = err instanceof DocumentRefused ? err.reason : 'the client id is not a valid URL';
        bad.set(clientId, reason, now + policy.failureCacheSec * 1000);
        return Promise.reject(new DocumentRefused(reason));
      }
      let inflight = pending.get(clientId);
      if (inflight === undefined) {
        if (pending.size >= CACHE_ENTRIES) return Promise.reject(new DocumentRefused('too many documents are being fetched; try again'));
        inflight = load(clientId, url).finally(() => pending.delete(clientId));
        pending.set(clientId, inflight);
      }
      return inflight.then((client) => structuredClone(client));
    },
  };
}
