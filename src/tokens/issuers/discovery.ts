/**
 * Where a trusted issuer publishes its keys, when the option does not say: RFC 8414
 * authorization server metadata first, then OpenID Connect discovery, whichever
 * answers with a document that names this very issuer. Looked up lazily, on the first
 * token of that issuer, and remembered for the life of the `Auth` object; a failure
 * is remembered for {@link RETRY_AFTER_FAILURE_MS}, so that a flood of tokens while
 * the IdP is down costs no flood of fetches.
 * @module
 */
import { UnavailableError } from '../../errors';
import { fetchJson } from '../../outbound';
import { urlProblem } from './options';

/** After a failed discovery or key fetch, no new attempt for this many milliseconds. */
export const RETRY_AFTER_FAILURE_MS = 10_000;

/**
 * The discovery URLs of `issuer`, in the order tried: RFC 8414 section 3.1 (the
 * well-known part inserted between host and path, a trailing `/` of the path
 * dropped), then OpenID Connect Discovery 1.0 section 4 (appended to the issuer).
 *
 * @example
 * ```ts
 * discoveryUrls('https://idp.example/realms/acme');
 * // ['https://idp.example/.well-known/oauth-authorization-server/realms/acme',
 * //  'https://idp.example/realms/acme/.well-known/openid-configuration']
 * ```
 */
export function discoveryUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}

/**
 * Read one discovery document: its `issuer` must be exactly ours (RFC 8414 section 3.3,
 * OIDC Discovery section 4.3: a document naming another issuer must not be used, or
 * one IdP could hand out another's keys) and its `jwks_uri` must follow the URL rules.
 */
async function jwksUriFrom(at: string, issuer: string): Promise<URL> {
  const { body: doc } = await fetchJson(at, { what: 'identity provider metadata' });
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UnavailableError(`${at} is not a metadata document`);
  const named = (doc as Record<string, unknown>)['issuer'];
  if (named !== issuer) throw new UnavailableError(`${at} names another issuer than ${issuer}`);
  const uri = (doc as Record<string, unknown>)['jwks_uri'];
  const problem = urlProblem(uri);
  if (problem !== undefined) throw new UnavailableError(`${at}: jwks_uri ${problem}`);
  return new URL(uri as string);
}

/**
 * @internal the discovered `jwks_uri` of one issuer, found once.
 *
 * @example
 * ```ts
 * const discovery = new Discovery('https://idp.example');
 * const jwks = await discovery.jwksUri(); // UnavailableError while the IdP cannot tell
 * ```
 */
export class Discovery {
  readonly #issuer: string;
  #found: URL | undefined;
  #pending: Promise<URL> | undefined;
  #failure: { at: number; error: UnavailableError } | undefined;

  constructor(issuer: string) {
    this.#issuer = issuer;
  }

  /** The issuer's `jwks_uri`; concurrent callers share one lookup. */
  jwksUri(): Promise<URL> {
    if (this.#found !== undefined) return Promise.resolve(this.#found);
    if (this.#pending !== undefined) return this.#pending;
    const failed = this.#failure;
    if (failed !== undefined && Date.now() - failed.at < RETRY_AFTER_FAILURE_MS) {
      return Promise.reject(new UnavailableError(`${failed.error.message} (not tried again yet)`, { cause: failed.error }));
    }
    const pending = this.#lookup().finally(() => {
      if (this.#pending === pending) this.#pending = undefined;
    });
    this.#pending = pending;
    return pending;
  }

  async #lookup(): Promise<URL> {
    const problems: string[] = [];
    for (const at of discoveryUrls(this.#issuer)) {
      try {
        this.#found = await jwksUriFrom(at, this.#issuer);
        this.#failure = undefined;
        return this.#found;
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
    const error = new UnavailableError(`no discovery document for ${this.#issuer}: ${problems.join('; ')}`);
    this.#failure = { at: Date.now(), error };
    throw error;
  }
}
