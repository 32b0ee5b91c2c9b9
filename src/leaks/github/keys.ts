/**
 * GitHub's secret scanning public keys: the document GitHub publishes
 * (`{ "public_keys": [{ "key_identifier", "key" (PEM), "is_current" }] }`),
 * given to the handler or fetched from the keys URL and cached.
 *
 * The cache is bounded in every direction: the document's size (64 KiB) and
 * its keys (64), each fetch's time, how often a fetch may happen (an unknown
 * key identifier, which anyone can send, triggers at most one fetch per
 * cooldown, so a flood of random identifiers costs GitHub one request), and
 * how long keys outlive a failed refresh (24 hours). Keys that cannot be had
 * are `UnavailableError` (503): a request is never accepted unverified.
 * @module
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { UnavailableError } from '../../errors';
import { isPlainObject } from '../../core/vocabulary';
import { fetchJson } from '../../outbound';

/**
 * Where GitHub publishes the keys that sign its secret scanning requests.
 *
 * @example
 * ```ts
 * const doc = (await (await fetch(GITHUB_SECRET_SCANNING_KEYS_URL)).json()) as GitHubPublicKeys;
 * ```
 */
export const GITHUB_SECRET_SCANNING_KEYS_URL = 'https://api.github.com/meta/public_keys/secret_scanning';

/**
 * The keys document GitHub publishes at {@link GITHUB_SECRET_SCANNING_KEYS_URL}: each key an ECDSA
 * P-256 public key in PEM, named by the identifier GitHub sends in `Github-Public-Key-Identifier`.
 *
 * @example
 * ```ts
 * const keys: GitHubPublicKeys = {
 *   public_keys: [{ key_identifier: 'bcb53661…', key: '-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----\n', is_current: true }],
 * };
 * ```
 */
export interface GitHubPublicKeys {
  /** Every key GitHub may sign with now. */
  public_keys: readonly {
    /** What `Github-Public-Key-Identifier` names. */
    key_identifier: string;
    /** PEM (SPKI), ECDSA P-256. */
    key: string;
    /** GitHub's mark for the key it signs with now; every listed key verifies. */
    is_current?: boolean;
  }[];
}

const MAX_DOCUMENT_BYTES = 64 * 1024;
const MAX_KEYS = 64;
const MAX_PEM = 8 * 1024;
/** Identifiers GitHub sends are hex digests; this admits any plain token, nothing that could split a header. */
export const KEY_ID = /^[A-Za-z0-9._:+/=-]{1,256}$/;
/** How long keys serve after the refresh that should have replaced them failed. */
const MAX_STALE_MS = 24 * 3_600_000;

/**
 * @internal the usable keys of a document: P-256 public keys by identifier. `strict`: any entry
 * that is not one is a problem (keys given to the handler); otherwise such entries are skipped
 * (a key type GitHub may add later). Returns the problem as text when nothing is usable.
 */
export function parseKeys(doc: unknown, strict: boolean): Map<string, KeyObject> | string {
  if (!isPlainObject(doc) || !Array.isArray(doc.public_keys)) return 'expected { "public_keys": [...] }';
  const list = doc.public_keys as unknown[];
  if (list.length > MAX_KEYS) return `more than ${MAX_KEYS} keys`;
  const keys = new Map<string, KeyObject>();
  for (const [i, entry] of list.entries()) {
    const key = isPlainObject(entry) ? p256(entry.key) : undefined;
    const id = isPlainObject(entry) ? entry.key_identifier : undefined;
    if (key === undefined || typeof id !== 'string' || !KEY_ID.test(id)) {
      if (strict) return `public_keys[${i}] is not { key_identifier, key } with an ECDSA P-256 public key in PEM`;
      continue;
    }
    keys.set(id, key);
  }
  return keys.size > 0 ? keys : 'no usable ECDSA P-256 key';
}

function p256(pem: unknown): KeyObject | undefined {
  if (typeof pem !== 'string' || pem.length > MAX_PEM || !pem.includes('-----BEGIN PUBLIC KEY-----')) return undefined;
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** @internal how the keys are fetched. */
export interface KeyFetchOptions {
  url: string;
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Sent as `Authorization: Bearer` (GitHub limits anonymous requests per address). */
  token: string | undefined;
  cacheMs: number;
  cooldownMs: number;
  timeoutMs: number;
  now?: () => number;
}

/** @internal the keys of one handler: given once, or fetched and cached. */
export class KeySource {
  readonly #fixed: Map<string, KeyObject> | undefined;
  readonly #remote: KeyFetchOptions | undefined;
  readonly #now: () => number;
  #keys: Map<string, KeyObject> | undefined;
  #fetchedAt = Number.NEGATIVE_INFINITY;
  #attemptAt = Number.NEGATIVE_INFINITY;
  #inFlight: Promise<void> | undefined;
  #lastError: unknown;
  /** Fetches started (for tests and metrics). */
  fetches = 0;

  constructor(source: { keys: Map<string, KeyObject> } | { remote: KeyFetchOptions }) {
    this.#fixed = 'keys' in source ? source.keys : undefined;
    this.#remote = 'remote' in source ? source.remote : undefined;
    this.#now = this.#remote?.now ?? Date.now;
  }

  /**
   * The key of `id`. `undefined` when GitHub does not list it: the keys were given, or were fetched
   * for this very lookup. `'later'` when the keys at hand do not list it but may be out of date
   * (a key GitHub has just rotated in) and the cooldown forbids a fetch now: the caller answers
   * 503, which GitHub retries, rather than a 403 it would not. Throws `UnavailableError` when no
   * keys can be had at all.
   */
  async find(id: string): Promise<KeyObject | undefined | 'later'> {
    if (this.#fixed !== undefined) return this.#fixed.get(id);
    const remote = this.#remote as KeyFetchOptions;
    const now = this.#now();
    const known = this.#keys?.get(id);
    if (known !== undefined && now - this.#fetchedAt < remote.cacheMs) return known;
    if (this.#inFlight === undefined && now - this.#attemptAt >= remote.cooldownMs) this.#inFlight = this.#refresh(remote);
    const fetched = this.#inFlight !== undefined;
    if (fetched) await this.#inFlight;
    if (this.#keys === undefined || this.#now() - this.#fetchedAt >= MAX_STALE_MS) {
      throw new UnavailableError("GitHub's secret scanning keys could not be fetched", { cause: this.#lastError });
    }
    const key = this.#keys.get(id);
    if (key !== undefined) return key;
    return fetched && this.#lastError === undefined ? undefined : 'later';
  }

  /** Whole seconds until the cooldown allows the next fetch (at least 1). */
  retryAfterSec(): number {
    const wait = this.#remote === undefined ? 0 : this.#attemptAt + this.#remote.cooldownMs - this.#now();
    return Math.max(1, Math.ceil(wait / 1000));
  }

  async #refresh(remote: KeyFetchOptions): Promise<void> {
    this.#attemptAt = this.#now();
    this.fetches++;
    try {
      this.#keys = await download(remote);
      this.#fetchedAt = this.#now();
      this.#lastError = undefined;
    } catch (err) {
      // Kept for the next `find`'s UnavailableError; the keys fetched before stay (up to MAX_STALE_MS).
      this.#lastError = err;
    } finally {
      this.#inFlight = undefined;
    }
  }
}

async function download(remote: KeyFetchOptions): Promise<Map<string, KeyObject>> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'svc-auth' };
  if (remote.token !== undefined) headers.authorization = `Bearer ${remote.token}`;
  const { body } = await fetchJson(remote.url, {
    what: "GitHub's secret scanning keys",
    headers,
    fetch: remote.fetch,
    timeoutMs: remote.timeoutMs,
    maxBytes: MAX_DOCUMENT_BYTES,
  });
  const keys = parseKeys(body, false);
  if (typeof keys === 'string') throw new Error(`the keys document is not usable: ${keys}`);
  return keys;
}
