/**
 * `svc-auth/mcp`, part 3: OAuth 2.0 Protected Resource Metadata (RFC 9728),
 * which MCP clients read to learn how to authenticate at an endpoint. A dev
 * instance without OAuth lists no authorization server: such a client can
 * only send a bearer token it was given (a PAT).
 * @module
 */
import { ValidationError, type IssueInput } from '../errors';
import { checkUrl } from './auth-info';
import { checkScopes } from './challenge';
import { DPOP_ALGORITHMS } from '../tokens';

/**
 * The RFC 9728 document served at `/.well-known/oauth-protected-resource/<path>`.
 *
 * @example
 * ```ts
 * const doc: ProtectedResourceMetadata = {
 *   resource: 'https://svc.example/mcp',
 *   bearer_methods_supported: ['header'],
 *   dpop_signing_alg_values_supported: ['EdDSA', 'ES256'],
 *   dpop_bound_access_tokens_required: false,
 * };
 * ```
 */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  bearer_methods_supported: string[];
  resource_name?: string;
  scopes_supported?: string[];
  /** The DPoP proof algorithms taken (RFC 9728 §2), the authorization server's own list. */
  dpop_signing_alg_values_supported: string[];
  /** Always `false`: bearer tokens are taken too (a bound token only with its proof). */
  dpop_bound_access_tokens_required: boolean;
}

/**
 * Options of {@link protectedResourceMetadata}.
 *
 * @example
 * ```ts
 * const options: ProtectedResourceOptions = {
 *   resource: 'https://svc.example/mcp',
 *   authorizationServers: ['https://login.svc.example'],
 *   scopesSupported: ['repo:read', 'repo:write'],
 * };
 * ```
 */
export interface ProtectedResourceOptions {
  /** The MCP endpoint's public URL, e.g. `https://svc.example/mcp`. */
  resource: string | URL;
  /** Issuer URLs of OAuth authorization servers. Omit (or `[]`) on an instance without OAuth. */
  authorizationServers?: readonly (string | URL)[];
  /** A human-readable name. */
  resourceName?: string;
  /**
   * The svc permissions a client should ask for (`scopes_supported`); omit or
   * `[]` for none. The `/mcp` handlers set it from their `scopes` option, so
   * it agrees with the `scope` of their 401 challenge.
   */
  scopesSupported?: readonly string[];
}

/**
 * The Protected Resource Metadata of an MCP endpoint. Bearer tokens are
 * accepted in the `Authorization` header only.
 *
 * @throws ValidationError when a URL is not an absolute http(s) URL, or `scopesSupported` is not a list of svc permissions.
 * @example
 * ```ts
 * protectedResourceMetadata({ resource: 'http://127.0.0.1:8080/mcp' });
 * // { resource: 'http://127.0.0.1:8080/mcp', bearer_methods_supported: ['header'] }
 * protectedResourceMetadata({ resource: 'http://127.0.0.1:8080/mcp', scopesSupported: ['repo:write', 'repo:read'] });
 * // { ..., scopes_supported: ['repo:read', 'repo:write'] } (in the vocabulary's order)
 * ```
 */
export function protectedResourceMetadata(options: ProtectedResourceOptions): ProtectedResourceMetadata {
  if (typeof options !== 'object' || options === null)
    throw new ValidationError([
      { path: 'options', message: 'expected { resource, authorizationServers?, resourceName?, scopesSupported? }' },
    ]);
  const doc: ProtectedResourceMetadata = {
    resource: checkUrl(options.resource, 'options.resource'),
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
    dpop_bound_access_tokens_required: false,
  };
  const servers = options.authorizationServers;
  if (servers !== undefined) {
    if (!Array.isArray(servers)) throw new ValidationError([{ path: 'options.authorizationServers', message: 'must be an array of URLs' }]);
    if (servers.length > 0) doc.authorization_servers = servers.map((s: unknown, i) => issuerOf(s, `options.authorizationServers[${i}]`));
  }
  if (options.resourceName !== undefined) {
    if (typeof options.resourceName !== 'string' || options.resourceName.length > 200) {
      throw new ValidationError([{ path: 'options.resourceName', message: 'must be a string of at most 200 characters' }]);
    }
    doc.resource_name = options.resourceName;
  }
  const issues: IssueInput[] = [];
  const scopes = checkScopes(options.scopesSupported, 'options.scopesSupported', issues);
  if (issues.length > 0) throw new ValidationError(issues);
  if (scopes !== undefined && scopes.length > 0) doc.scopes_supported = [...scopes];
  return doc;
}

/**
 * An issuer identifier as given: clients compare it with the `issuer` of the server's own metadata
 * character for character (RFC 8414 3.3), so `https://as.example` must not become `https://as.example/`.
 */
function issuerOf(value: unknown, path: string): string {
  const href = checkUrl(value, path);
  return typeof value === 'string' && value === new URL(href).origin ? value : href;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * Where the metadata of `resource` is served (RFC 9728 section 3.1): the
 * well-known prefix goes between the host and the path, so
 * `https://svc.example/mcp` has its metadata at
 * `https://svc.example/.well-known/oauth-protected-resource/mcp`.
 *
 * @throws ValidationError when `resource` is not an absolute http(s) URL.
 * @example
 * ```ts
 * resourceMetadataUrl('http://127.0.0.1:8080/mcp'); // 'http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp'
 * ```
 */
export function resourceMetadataUrl(resource: string | URL): string {
  const url = new URL(checkUrl(resource, 'resource'));
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/** @internal the path of the resource a metadata path describes (the inverse of {@link resourceMetadataUrl}), or undefined. */
export function resourceOfMetadataPath(path: string): string | undefined {
  if (path !== WELL_KNOWN && !path.startsWith(`${WELL_KNOWN}/`)) return undefined;
  return path.slice(WELL_KNOWN.length) || '/';
}
