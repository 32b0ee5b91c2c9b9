/**
 * Which authorization server `svc auth login` signs in at, and its endpoints.
 * The server is `--server`, else `SVC_URL`, else the `svc serve` recorded in
 * `SVC_HOME/serve.json`. Every one of them is checked as hostile input: an
 * http(s) origin without credentials, https unless the host is loopback (a
 * token sent over plain http anywhere else could be read on the way). The
 * endpoints come from its RFC 8414 metadata, whose `issuer` must be the URL
 * itself and whose endpoints must be on its origin: metadata that sends the
 * CLI's refresh token to another host is refused.
 * @module
 */
import { UnavailableError, ValidationError } from '../../../errors';
import { serviceUrl } from '../../../core/network';
import { serveFile } from '../../dev';
import type { CliEnv } from '../../dev';
import { requestJson } from './http';

/** Where the server URL came from, as messages name it. */
export type ServerSource = '--server' | 'SVC_URL' | 'svc serve';

/** The endpoints the CLI uses. */
export interface ServerEndpoints {
  /** The issuer: the server's base URL (an origin). */
  readonly issuer: string;
  readonly deviceAuthorization: string;
  readonly token: string;
  /** RFC 7009; `undefined` when the server offers none. */
  readonly revocation: string | undefined;
  /** The grant types the metadata lists (`grant_types_supported`; strings only, at most 32). */
  readonly grantTypes: readonly string[];
}

/**
 * The server URL `text` as an origin (`http://127.0.0.1:8080`), or a `ValidationError`
 * that names `from`: not http(s), credentials in it, a path, query or fragment, or
 * plain http to a host that is not loopback.
 *
 * @example
 * ```ts
 * checkServerUrl('http://127.0.0.1:8080/', '--server'); // 'http://127.0.0.1:8080'
 * ```
 */
export function checkServerUrl(text: string, from: string): string {
  const fail = (message: string): never => {
    throw new ValidationError([{ path: from, message }]);
  };
  const trimmed = text.trim();
  if (URL.parse(trimmed) === null) return fail('expected the server URL, such as http://127.0.0.1:8080');
  const url = serviceUrl(trimmed);
  if (typeof url === 'string') return fail(`the server URL ${url}`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '')
    return fail('the server URL must be its base URL, without a path, query or fragment');
  return url.origin;
}

/**
 * The server to sign in at: `--server`, else `SVC_URL`, else the `svc serve` recorded
 * in `home`. `undefined` when none is given.
 *
 * @throws ValidationError when the URL given is not acceptable.
 * @example
 * ```ts
 * const found = await findServer(undefined, io.env, dev.home); // { url, source } | undefined
 * ```
 */
export async function findServer(
  flag: string | undefined,
  env: CliEnv,
  home: string,
): Promise<{ url: string; source: ServerSource } | undefined> {
  if (flag !== undefined) return { url: checkServerUrl(flag, '--server'), source: '--server' };
  const fromEnv = env.SVC_URL;
  if (fromEnv !== undefined && fromEnv !== '') return { url: checkServerUrl(fromEnv, 'SVC_URL'), source: 'SVC_URL' };
  const recorded = await serveFile(home).read();
  if (recorded === undefined) return undefined;
  return { url: checkServerUrl(recorded.url, 'SVC_HOME/serve.json'), source: 'svc serve' };
}

/** An endpoint of the metadata: a URL on the issuer's origin, or `undefined` when absent and optional. */
function endpoint(meta: Record<string, unknown>, key: string, issuer: string, optional: boolean): string | undefined {
  const value = meta[key];
  if (value === undefined && optional) return undefined;
  const url = typeof value === 'string' && value.length <= 2048 ? URL.parse(value) : null;
  if (url === null || url.origin !== issuer || url.username !== '' || url.password !== '') {
    throw new UnavailableError(`the server's metadata has no usable ${key} on ${issuer}`);
  }
  return url.href;
}

/**
 * The server's endpoints, from its RFC 8414 metadata. A stale `serve.json` (no
 * server answers at its URL) is said as such.
 *
 * @throws UnavailableError when the server does not answer, or its metadata is not usable.
 * @example
 * ```ts
 * const endpoints = await discover('http://127.0.0.1:8080', 'svc serve');
 * ```
 */
export async function discover(server: string, source: ServerSource): Promise<ServerEndpoints> {
  const where = `${server}/.well-known/oauth-authorization-server`;
  let answer;
  try {
    answer = await requestJson(where, `the server ${server}`);
  } catch (err) {
    if (source !== 'svc serve') throw err;
    throw new UnavailableError(
      `SVC_HOME/serve.json names ${server}, but no server answers there (a svc serve that stopped without cleaning up?): start 'svc serve' again, or pass --server <url> or --user <id>`,
      { cause: err },
    );
  }
  const meta = answer.body;
  if (answer.status !== 200 || meta === undefined) {
    throw new UnavailableError(`${server} is not an OAuth authorization server (no RFC 8414 metadata; HTTP ${answer.status})`);
  }
  if (meta.issuer !== server) throw new UnavailableError(`the metadata of ${server} names another issuer: refused`);
  return {
    issuer: server,
    deviceAuthorization: endpoint(meta, 'device_authorization_endpoint', server, false) as string,
    token: endpoint(meta, 'token_endpoint', server, false) as string,
    revocation: endpoint(meta, 'revocation_endpoint', server, true),
    grantTypes: Array.isArray(meta.grant_types_supported)
      ? meta.grant_types_supported.slice(0, 32).filter((g): g is string => typeof g === 'string' && g.length <= 256)
      : [],
  };
}
