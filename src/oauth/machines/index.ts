/**
 * Machine clients on the authorization server: the OAuth clients of service
 * accounts, used with the `client_credentials` grant. They are never
 * registered dynamically: each lives in its account's record, and
 * oidc-provider finds it from the client id alone (`sa~<org>~<name>~<random>`
 * names the account). A client whose account is disabled, a revoked client or
 * an unknown id is not found, which oidc-provider answers with
 * `invalid_client`.
 *
 * The secret of a `client_secret_basic` client is stored as its SHA-256 only.
 * The server already compares every presented client secret by hashing it
 * (server.ts replaces `Client.prototype.compareClientSecret`), so the client
 * entry handed to oidc-provider carries the stored hash in the same
 * `sha256:` form the registered clients' entries use: oidc-provider does the
 * client authentication itself, and the secret is never kept.
 * @module
 */
import { parseMachineClientId, serviceAccountId } from '../../core/vocabulary';
import { internalsOf, type Auth } from '../../service';
import type { OAuthEntry } from '../storage';

export { JWT_BEARER_GRANT, WORKLOAD_CLIENT_ID, jwtBearerHandler, workloadClientMetadata } from './workloads';

/** @internal The record shapes the lookup reads (the service's `machines` internals answer them). */
interface FoundClient {
  account: { org: string; name: string; disabled: boolean };
  client: {
    clientId: string;
    method: 'private_key_jwt' | 'client_secret_basic';
    jwks?: { keys: readonly object[] } | null;
    secretHash?: string | null;
    revokedAt?: Date | null;
  };
  /** The permissions the account's live role can ever grant on its org, when the service says them. */
  permissions?: readonly string[];
}

interface MachinesInternals {
  findClient(clientId: string): Promise<FoundClient | null> | FoundClient | null;
}

/** @internal The machine clients of `auth`, as oidc-provider client entries. */
export interface MachineClients {
  /** The client entry of `clientId`, or `undefined` (unknown, revoked, disabled account). Never throws. */
  find(clientId: string): Promise<OAuthEntry | undefined>;
  /** The account id (`sa:<org>/<name>`) a machine client id names, or `null`. */
  accountOf(clientId: string | undefined): string | null;
}

/** @internal The lookup over the service's `machines` internals; without them no machine client is found. */
export function machineClients(auth: Auth): MachineClients {
  return Object.freeze({
    async find(clientId: string): Promise<OAuthEntry | undefined> {
      // Read per request: the service's internals are the live source of accounts and clients.
      const machines = (internalsOf(auth) as { machines?: MachinesInternals } | undefined)?.machines;
      if (machines === undefined || parseMachineClientId(clientId) === null) return undefined;
      let found: FoundClient | null;
      try {
        found = await machines.findClient(clientId);
      } catch {
        return undefined;
      }
      if (found === null || found.account.disabled || found.client.revokedAt != null || found.client.clientId !== clientId)
        return undefined;
      return entryOf(found);
    },
    accountOf(clientId: string | undefined): string | null {
      const ref = parseMachineClientId(clientId);
      return ref === null ? null : serviceAccountId(ref.org, ref.name);
    },
  });
}

function entryOf(found: FoundClient): OAuthEntry | undefined {
  const base: OAuthEntry = {
    client_id: found.client.clientId,
    client_name: `service account ${found.account.org}/${found.account.name}`,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
  };
  if (found.permissions !== undefined) base.scope = found.permissions.join(' ');
  if (found.client.method === 'private_key_jwt') {
    if (found.client.jwks == null) return undefined;
    return { ...base, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [...found.client.jwks.keys] } };
  }
  if (typeof found.client.secretHash !== 'string' || found.client.secretHash === '') return undefined;
  return { ...base, token_endpoint_auth_method: 'client_secret_basic', client_secret: `sha256:${found.client.secretHash}` };
}
