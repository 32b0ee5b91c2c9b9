/**
 * DPoP at the resource (RFC 9449 §7): a token bound to a key (`cnf.jkt`)
 * is taken only with the DPoP scheme and a proof by that key for this very
 * request, used once. The proof's own checks are the tokens layer's
 * (`checkProof`); here are the request's method and URL as the server is
 * reached, and the replay cache: the token store's when it offers one
 * (`claimProof`, shared by every server on that store), else this instance's
 * memory. A token bound to no key is refused with the DPoP scheme: checking
 * a proof for it would bind nothing, and a client that believes its token
 * is bound should learn that it is not (RFC 9449 §7.1 leaves it to the
 * resource).
 * @module
 */
import { AuthenticationError } from '../../errors';
import { checkProof, isDpopValue, proofText, ReplayCache, type BearerRequest, type DpopCredential, type DpopNonces } from '../../tokens';
import { CLAIM_NOW, type ClaimNowSource, type TokenRecord, type TokenStore } from '../../stores';
import type { RangeMatcher } from '../../core/network';
import type { ResolvedOptions } from '../options';
import { addressOf } from './origin';

/**
 * @internal A proof checked before its token's key is known (a PAT's key is in its record), with its
 * replay claim already sent: the claim's round trip overlaps the chain read's. Or the refusal it met,
 * kept to be told once the chain has been read (a revoked token is refused as revoked first).
 */
export type StartedProof =
  | {
      /** The thumbprint of the key that signed the proof. */
      readonly thumbprint: string;
      /** Whether the proof was taken the first time: at once from a store in this process, else a promise (already handled). */
      readonly fresh: boolean | Promise<boolean>;
    }
  | { readonly refused: unknown };

/** @internal The binding checks of one `Auth` instance. */
export interface BindingCheck {
  /** A token whose key is known now (`cnf.jkt` of an access token): resolves when the binding holds. */
  check(
    jkt: string | null,
    token: string,
    dpop: DpopCredential | undefined,
    req: BearerRequest | undefined,
    address: unknown,
    at: number,
  ): Promise<void>;
  /** Check a request's proof and send its replay claim, before the token's key is known. Never throws. */
  start(token: string, dpop: DpopCredential, req: BearerRequest | undefined, address: unknown, at: number): StartedProof;
  /**
   * Once the key is known (`null`: the token is not bound): returns when the started proof binds the token,
   * throws the refusal otherwise; a promise only while a claim sent to the store is on its way.
   */
  finish(jkt: string | null, started: StartedProof | undefined): void | Promise<void>;
}

function header(req: BearerRequest, name: string): string | undefined {
  const headers = (req as { headers: unknown }).headers as Record<string, unknown> & { get?: unknown };
  const value: unknown = typeof headers.get === 'function' ? (headers.get as (n: string) => unknown).call(headers, name) : headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The URL the client addressed: a fetch `Request`'s own URL; for a node request, the `Host` header and
 * the path (Express's `originalUrl` when mounted), over TLS when the socket is. Behind a proxy of
 * `trustProxy` (the peer is one), the proxy's `X-Forwarded-Proto` and `X-Forwarded-Host` name the
 * scheme and host the client used, as the proxy's `X-Forwarded-For` names the client.
 */
function requestUrl(req: BearerRequest, address: unknown, trust: RangeMatcher | null): string | URL {
  const fetchUrl = (req as { url?: unknown }).url;
  const isFetch = typeof (req as { headers: { get?: unknown } }).headers.get === 'function';
  const viaProxy = trust !== null && fromProxy(req, address, trust);
  let url: URL;
  if (isFetch && typeof fetchUrl === 'string') {
    // A fetch Request's URL is already parsed and serialized: its text before the query is the target.
    if (!viaProxy) return beforeQuery(fetchUrl);
    url = new URL(fetchUrl);
  } else {
    const path = (req as { originalUrl?: unknown }).originalUrl ?? fetchUrl;
    const encrypted = (req as { socket?: { encrypted?: unknown } }).socket?.encrypted === true;
    const host = header(req, 'host') ?? 'localhost';
    const target = typeof path === 'string' ? path : '/';
    const text = `${encrypted ? 'https' : 'http'}://${host}${target}`;
    // The text as received, when it is plainly a host and a path: a proof's htu equal to it is the same
    // target without parsing either (a differing one is parsed and compared, proof.ts).
    if (!viaProxy && PLAIN_HOST.test(host) && target.startsWith('/')) return beforeQuery(text);
    url = new URL(text);
  }
  if (viaProxy) {
    const proto = header(req, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
    const host = header(req, 'x-forwarded-host')?.split(',')[0]?.trim();
    if (proto === 'https' || proto === 'http') url.protocol = `${proto}:`;
    if (host !== undefined && host !== '') {
      // The forwarded host names its own port, or none: the internal Host's port is not the client's.
      url.port = '';
      url.host = host;
    }
  }
  return url;
}

/** A host name or address with an optional port, nothing else. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

const beforeQuery = (text: string): string => {
  const at = text.search(/[?#]/);
  return at === -1 ? text : text.slice(0, at);
};

/** Is the peer one of the proxies of `trustProxy`? Then its `X-Forwarded-Proto` and `-Host` name the target. */
function fromProxy(req: BearerRequest, address: unknown, trust: RangeMatcher): boolean {
  const peer = address !== undefined ? address : (req as { socket?: { remoteAddress?: unknown } }).socket?.remoteAddress;
  // addressOf without a trust list is the peer itself.
  const from = addressOf(undefined, peer, null);
  return from !== undefined && trust.matches(from);
}

const NOT_BOUND = 'the token is not bound to a key: send it as a Bearer token';
const NEEDS_PROOF = 'the token is bound to a key: it needs the DPoP scheme and a proof';
const USED = 'invalid DPoP proof: the proof was used before';

function refuse(reason: 'dpop' | 'bound', message: string): AuthenticationError {
  return new AuthenticationError(reason, message);
}

/**
 * @internal The binding checks of one `Auth` instance.
 *
 * @example
 * ```ts
 * const binding = bindingCheck(opts, store, call);
 * await binding.check(claims.jkt, token, dpop, req, address, nowMs());
 * ```
 */
export function bindingCheck(
  opts: ResolvedOptions,
  store: TokenStore,
  call: <T>(what: string, fn: () => T | Promise<T>) => Promise<T>,
): BindingCheck {
  const memory = new ReplayCache();
  const shared = typeof store.claimProof === 'function';
  const now = (store as ClaimNowSource)[CLAIM_NOW];

  /** The replay claim of `key`: at once from a store in this process (or this instance's cache), else by the store. */
  function claim(key: string, untilMs: number, at: number): boolean | Promise<boolean> {
    if (!shared) return memory.claim(key, untilMs, at);
    try {
      const got = now?.call(store, key, untilMs, at);
      if (got !== undefined) return got;
    } catch {
      return false; // fail closed: the proof is refused as used
    }
    const fresh = call('token store', () =>
      (store as Required<Pick<TokenStore, 'claimProof'>>).claimProof(key, new Date(untilMs), new Date(at)),
    );
    fresh.catch(() => undefined); // read by finish; a chain read that fails first leaves it unread
    return fresh;
  }

  /** The proof checked now (one signature check, no I/O), its claim sent; throws the refusal. */
  function begin(token: string, dpop: DpopCredential, req: BearerRequest | undefined, address: unknown, at: number): StartedProof {
    if (req === undefined) throw refuse('bound', NEEDS_PROOF);
    const proof = proofText(dpop.proof);
    let method: unknown;
    let url: string | URL;
    try {
      method = (req as { method?: unknown }).method;
      url = requestUrl(req, address, opts.trustProxy);
    } catch {
      throw refuse('dpop', 'invalid DPoP proof: the request URL could not be read');
    }
    const checked = checkProof(proof, {
      method: typeof method === 'string' ? method : '',
      url,
      token,
      jkt: null,
      nowSec: Math.floor(at / 1000),
      windowSec: opts.dpopProofAgeSec,
      toleranceSec: opts.clockToleranceSec,
      nonces: opts.dpopNonces,
    });
    // The jti is unique per key (RFC 9449 §11.1): scoped to the key, one client cannot spend another's.
    // Claimed before the binding is compared: a proof by another key is refused anyway, and spending
    // its jti costs its sender nothing it could use.
    return { thumbprint: checked.thumbprint, fresh: claim(`${checked.thumbprint}:${checked.jti}`, checked.expiresAtMs, at) };
  }

  function finish(jkt: string | null, started: StartedProof | undefined): void | Promise<void> {
    if (jkt === null) {
      if (started !== undefined) throw refuse('bound', NOT_BOUND);
      return;
    }
    if (started === undefined) throw refuse('bound', NEEDS_PROOF);
    if ('refused' in started) throw started.refused;
    if (started.thumbprint !== jkt)
      throw refuse('dpop', 'invalid DPoP proof: the proof is signed by another key than the token is bound to');
    if (typeof started.fresh === 'boolean') {
      if (!started.fresh) throw refuse('dpop', USED);
      return;
    }
    return started.fresh.then((fresh) => {
      if (fresh !== true) throw refuse('dpop', USED);
    });
  }

  function start(token: string, dpop: DpopCredential, req: BearerRequest | undefined, address: unknown, at: number): StartedProof {
    try {
      return begin(token, dpop, req, address, at);
    } catch (err) {
      return { refused: err };
    }
  }

  return Object.freeze({
    start,
    finish,
    async check(jkt, token, dpop, req, address, at): Promise<void> {
      if (jkt === null) {
        if (dpop !== undefined) throw refuse('bound', NOT_BOUND);
        return;
      }
      if (dpop === undefined) throw refuse('bound', NEEDS_PROOF);
      await finish(jkt, begin(token, dpop, req, address, at));
    },
  } satisfies BindingCheck);
}

/**
 * @internal What the guards and `/mcp` send in `DPoP-Nonce` with their answer to `req` (RFC 9449 §8.2):
 * the current nonce when `nonces` is on and `req` used the DPoP scheme, so a client that keeps the newest
 * nonce is not refused when the slot turns. Never throws.
 *
 * @example
 * ```ts
 * const nonceFor = nonceForAnswer(opts.dpopNonces, nowMs);
 * const nonce = nonceFor(req); // undefined for a Bearer request
 * ```
 */
export function nonceForAnswer(nonces: DpopNonces | null, nowMs: () => number): (req: unknown) => string | undefined {
  if (nonces === null) return () => undefined;
  return (req) => {
    try {
      const value = header(req as BearerRequest, 'authorization');
      return value !== undefined && isDpopValue(value) ? nonces.current(Math.floor(nowMs() / 1000)) : undefined;
    } catch {
      return undefined;
    }
  };
}

/** @internal is any record of the chain bound to a key? */
export function isBound(chain: readonly TokenRecord[]): boolean {
  for (const r of chain) if (r.boundKey != null) return true;
  return false;
}

/**
 * @internal The key the head must prove: its own. A chain bound above an unbound head
 * cannot come from `create` (a child inherits the binding); a store that
 * lost it is refused rather than read as unbound (defense in depth).
 */
export function boundKeyOf(chain: readonly TokenRecord[]): string | null {
  const own = (chain[0] as TokenRecord).boundKey ?? null;
  if (own === null && isBound(chain)) throw new AuthenticationError('bound', 'the token that created this one is bound to a key');
  return own;
}
