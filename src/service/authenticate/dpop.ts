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
import { checkProof, proofText, ReplayCache, type BearerRequest, type DpopCredential } from '../../tokens';
import type { TokenStore } from '../../stores';
import type { RangeMatcher } from '../../core/network';
import type { ResolvedOptions } from '../options';
import { addressOf } from './origin';

/**
 * @internal A proof checked before its token's key is known (a PAT's key is in its record), with its
 * replay claim already sent: the claim's round trip overlaps the chain read's.
 */
export interface StartedProof {
  /** The thumbprint of the key that signed the proof. */
  readonly thumbprint: string;
  /** Whether the proof was taken for the first time (already handled: awaiting it never goes unhandled). */
  readonly fresh: Promise<boolean>;
}

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
  /** Check a request's proof and send its replay claim, before the token's key is known. */
  start(token: string, dpop: DpopCredential, req: BearerRequest | undefined, address: unknown, at: number): Promise<StartedProof>;
  /** Once the key is known (`null`: the token is not bound): resolves when the started proof binds the token. */
  finish(jkt: string | null, started: Promise<StartedProof> | undefined): Promise<void>;
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
function requestUrl(req: BearerRequest, address: unknown, trust: RangeMatcher | null): string {
  const fetchUrl = (req as { url?: unknown }).url;
  const isFetch = typeof (req as { headers: { get?: unknown } }).headers.get === 'function';
  let url: URL;
  if (isFetch && typeof fetchUrl === 'string') url = new URL(fetchUrl);
  else {
    const path = (req as { originalUrl?: unknown }).originalUrl ?? fetchUrl;
    const encrypted = (req as { socket?: { encrypted?: unknown } }).socket?.encrypted === true;
    url = new URL(`${encrypted ? 'https' : 'http'}://${header(req, 'host') ?? 'localhost'}${typeof path === 'string' ? path : '/'}`);
  }
  if (trust !== null) {
    const peer = address !== undefined ? address : (req as { socket?: { remoteAddress?: unknown } }).socket?.remoteAddress;
    // addressOf without a trust list is the peer itself: is the peer one of the proxies?
    const from = addressOf(undefined, peer, null);
    if (from !== undefined && trust.matches(from)) {
      const proto = header(req, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
      const host = header(req, 'x-forwarded-host')?.split(',')[0]?.trim();
      if (proto === 'https' || proto === 'http') url.protocol = `${proto}:`;
      if (host !== undefined && host !== '') url.host = host;
    }
  }
  return url.href;
}

const NOT_BOUND = 'the token is not bound to a key: send it as a Bearer token';
const NEEDS_PROOF = 'the token is bound to a key: it needs the DPoP scheme and a proof';

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

  /** The proof checked now (one signature check, no I/O), its claim sent; throws the refusal. */
  function begin(token: string, dpop: DpopCredential, req: BearerRequest | undefined, address: unknown, at: number): StartedProof {
    if (req === undefined) throw refuse('bound', NEEDS_PROOF);
    const proof = proofText(dpop.proof);
    let method: unknown;
    let url: string;
    try {
      method = (req as { method?: unknown }).method;
      url = requestUrl(req, address, opts.trustProxy);
    } catch {
      throw refuse('dpop', 'invalid DPoP proof: the request URL could not be read');
    }
    const nowSec = Math.floor(at / 1000);
    const checked = checkProof(proof, {
      method: typeof method === 'string' ? method : '',
      url,
      token,
      jkt: null,
      nowSec,
      windowSec: opts.dpopProofAgeSec,
      toleranceSec: opts.clockToleranceSec,
    });
    // The jti is unique per key (RFC 9449 §11.1): scoped to the key, one client cannot spend another's.
    // Claimed before the binding is compared: a proof by another key is refused anyway, and spending
    // its jti costs its sender nothing it could use.
    const key = `${checked.thumbprint}:${checked.jti}`;
    const fresh = shared
      ? call('token store', () =>
          (store as Required<Pick<TokenStore, 'claimProof'>>).claimProof(key, new Date(checked.expiresAtMs), new Date(at)),
        )
      : Promise.resolve(memory.claim(key, checked.expiresAtMs, at));
    fresh.catch(() => undefined); // awaited by finish; a chain read that fails first leaves it unread
    return { thumbprint: checked.thumbprint, fresh };
  }

  async function finish(jkt: string | null, started: Promise<StartedProof> | undefined): Promise<void> {
    if (jkt === null) {
      if (started !== undefined) throw refuse('bound', NOT_BOUND);
      return;
    }
    if (started === undefined) throw refuse('bound', NEEDS_PROOF);
    const proof = await started;
    if (proof.thumbprint !== jkt) throw refuse('dpop', 'invalid DPoP proof: the proof is signed by another key than the token is bound to');
    if ((await proof.fresh) !== true) throw refuse('dpop', 'invalid DPoP proof: the proof was used before');
  }

  const api: BindingCheck = {
    start(token: string, dpop: DpopCredential, req: BearerRequest | undefined, address: unknown, at: number): Promise<StartedProof> {
      let started: Promise<StartedProof>;
      try {
        started = Promise.resolve(begin(token, dpop, req, address, at));
      } catch (err) {
        started = Promise.reject(err instanceof Error ? err : new Error('the proof could not be checked'));
      }
      // Read by finish, which may refuse first (an unbound token, a chain that failed): never unhandled.
      started.catch(() => undefined);
      return started;
    },
    finish,
    async check(jkt, token, dpop, req, address, at): Promise<void> {
      if (jkt === null) {
        if (dpop !== undefined) throw refuse('bound', NOT_BOUND);
        return;
      }
      if (dpop === undefined) throw refuse('bound', NEEDS_PROOF);
      return finish(jkt, api.start(token, dpop, req, address, at));
    },
  };
  return Object.freeze(api);
}
