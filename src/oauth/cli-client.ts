/**
 * The first-party client of the `svc` command line (`clients.cli`): one public
 * client, id `svc-cli`, that signs a person in by the device flow and whose
 * access tokens carry no `scope` claim. The scope-narrowing rule refuses all token
 * management to a session narrowed by a `scope` claim, and the command line
 * exists to manage tokens; so its tokens are like an interactive session's
 * (not narrowed, still capped by the user's roles), and the consent page says
 * it asks for full access. Every other client's access tokens always carry a
 * `scope` claim, even an empty one: a token without the claim would be read as
 * not narrowed (T10), so no client may obtain one by asking for no scope.
 * @module
 */
import type { ClientMetadata } from 'oidc-provider';

/**
 * The client id of the `svc` command line, registered by `clients: { cli: true }`.
 *
 * @example
 * ```ts
 * import { CLI_CLIENT_ID } from 'svc-auth/oauth';
 * const body = new URLSearchParams({ client_id: CLI_CLIENT_ID, resource: 'http://127.0.0.1:8080' });
 * ```
 */
export const CLI_CLIENT_ID = 'svc-cli';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * @internal The static client registration of the command line: public, the device
 * flow and refresh only, no redirect URI (so no authorization code flow can name it:
 * a web page cannot start one as `svc-cli`). Static clients are found before stored,
 * registered or metadata-document clients, and registration never lets a client pick
 * its id, so no other client can be `svc-cli`.
 */
export function cliClientMetadata(): ClientMetadata {
  return {
    client_id: CLI_CLIENT_ID,
    client_name: 'svc command line',
    grant_types: [DEVICE_GRANT, 'refresh_token'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'none',
  };
}

/**
 * @internal The scope rule, applied to every JWT access token's payload before it is
 * signed: the command line's tokens lose `scope`; every other token keeps one, `''`
 * (narrowed to nothing) when oidc-provider would leave it out.
 */
export function applyScopeRule(cli: boolean, clientId: string | undefined, payload: Record<string, unknown>): void {
  if (cli && clientId === CLI_CLIENT_ID) {
    delete payload.scope;
    return;
  }
  if (typeof payload.scope !== 'string') payload.scope = '';
}

/** A name folded for comparison: compatibility forms, case, and everything but letters and digits dropped. */
const fold = (name: string): string =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');

/**
 * @internal Does a client's chosen name imitate the command line's (`svc command line`,
 * `SVC CLI`, `svc-cli`, with any spacing, case or punctuation)? Such a name is refused at
 * registration: the first-party name is the server's own.
 *
 * @example
 * ```ts
 * imitatesCli('S.V.C. Command-Line'); // true
 * imitatesCli('Claude Desktop');      // false
 * ```
 */
export function imitatesCli(name: unknown): boolean {
  if (typeof name !== 'string') return false;
  const folded = fold(name);
  return folded.includes('svccommandline') || folded.includes('svccli');
}

/** @internal Is this the command line's client (when it is registered)? */
export function isCliClient(cli: boolean, clientId: unknown): boolean {
  return cli && clientId === CLI_CLIENT_ID;
}
