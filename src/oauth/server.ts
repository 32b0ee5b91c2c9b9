/**
 * `createAuthorizationServer`: the composition root of `svc-auth/oauth`, read
 * as the feature list. oidc-provider (an optional peer dependency, loaded
 * here, on first use) does the protocol; this package gives it storage, keys,
 * its rules (config.ts), the pages (interactions/, pages/), metadata documents
 * (cimd/), one spelling per resource (resources.ts) and a node:http mount
 * (mount.ts).
 * @module
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { UnavailableError } from '../errors';
import { internalsOf } from '../service';
import { PERMISSIONS } from '../core/vocabulary';
import { isDocumentClientId, metadataDocuments, DocumentRefused } from './cimd';
import { isCliClient } from './cli-client';
import { ownDeviceLinkPage, providerConfiguration, routesOf } from './config';
import { errorPage, pageHeaders, type ClientView } from './pages';
import { attemptAddress, interactionRoutes, userCodeAttempts } from './interactions';
import { JWT_BEARER_GRANT, jwtBearerHandler, machineClients } from './machines';
import { mount } from './mount';
import { resolveOptions } from './options';
import { sessionRecords } from './records';
import { adapterClass, checkSecrets, freshSecrets, matchesClientSecret } from './storage';
import type { AuthorizationServer, AuthorizationServerOptions } from './types';

type ProviderModule = typeof import('oidc-provider');

/** oidc-provider 9 needs Node 20.18 or later (it runs on 20.18+ with a warning; 22 is its supported line). */
function checkRuntime(): void {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 18)) {
    throw new UnavailableError(`svc-auth/oauth needs Node.js 20.18 or later (oidc-provider 9); this is ${process.versions.node}`);
  }
}

async function loadProvider(): Promise<ProviderModule> {
  try {
    return await import('oidc-provider');
  } catch (err) {
    throw new UnavailableError(
      "svc-auth/oauth needs the optional peer dependency 'oidc-provider' (9.13): run npm install oidc-provider@9.13.3",
      { cause: err },
    );
  }
}

/** The methods of each endpoint path, for a 405 with `Allow` on the others. */
function allowedMethods(prefix: string): Map<string, string> {
  const r = routesOf(prefix);
  return new Map([
    [r.authorization, 'GET, POST'],
    [r.token, 'POST'],
    [r.registration, 'POST'],
    [r.jwks, 'GET'],
    [r.revocation, 'POST'],
    [r.device_authorization, 'POST'],
    [r.code_verification, 'GET, POST'],
    ['/.well-known/oauth-authorization-server', 'GET'],
    ['/.well-known/openid-configuration', 'GET'],
  ] as [string, string][]);
}

/**
 * Build an OAuth 2.1 authorization server for `options.auth`'s users: RFC 8414
 * and OIDC metadata, dynamic client registration (RFC 7591: public clients by
 * default, confidential ones with a secret stored hashed, limited per address)
 * and Client ID Metadata Documents, the authorization code with PKCE (S256
 * only, `state` optional), resource indicators (RFC 8707) that bind
 * each JWT access token (RFC 9068, `typ: at+jwt`, at most an hour) to one
 * resource, rotating refresh tokens, revocation (RFC 7009) and the device
 * flow (RFC 8628), with plain-HTML sign-in and consent pages. The permissions
 * a person approves become the token's `scope`.
 *
 * @throws ValidationError for bad options (every problem at once).
 * @throws UnavailableError when `oidc-provider` is not installed, Node.js is older than 20.18, or the storage fails.
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createAuthorizationServer, MemoryOAuthStorage } from 'svc-auth/oauth';
 * const oauth = await createAuthorizationServer({
 *   auth,
 *   issuer: 'http://127.0.0.1:8080',
 *   signIn: { users: () => ['alice'] },
 *   storage: new MemoryOAuthStorage(),
 * });
 * createServer(async (req, res) => {
 *   if (!(await oauth.handle(req, res))) res.writeHead(404).end();
 * }).listen(8080, '127.0.0.1');
 * ```
 */
export async function createAuthorizationServer(options: AuthorizationServerOptions): Promise<AuthorizationServer> {
  const o = resolveOptions(options);
  checkRuntime();
  const mod = await loadProvider();
  let stored: unknown;
  try {
    stored = await o.storage.initSecrets(freshSecrets());
  } catch (err) {
    throw new UnavailableError('the OAuth storage could not be read', { cause: err });
  }
  const secrets = checkSecrets(stored);
  // Forget one of the server's own grants (its record was ended): the next authorization asks again.
  const dropGrant = async (grantId: string): Promise<void> => {
    await o.storage.revokeByGrantId(grantId);
    await o.storage.destroy('Grant', grantId);
  };
  const records = sessionRecords(
    o.auth,
    (message) => new mod.errors.InvalidGrant(message),
    (grantId) => dropGrant(grantId),
  );
  const documents = o.documents === undefined ? undefined : metadataDocuments(o.documents);
  const machines = machineClients(o.auth);

  const Adapter = adapterClass(o.storage, {
    isDocument: (id) => documents !== undefined && isDocumentClientId(id),
    async documentClient(id) {
      try {
        return await (documents as NonNullable<typeof documents>).resolve(id);
      } catch (err) {
        const reason = err instanceof DocumentRefused ? err.reason : 'the document could not be used';
        throw new mod.errors.InvalidClient(`client metadata document refused: ${reason}`);
      }
    },
    grantRevoked: (grantId) => records.grantRevoked(grantId),
    clientTtlSec: { unused: o.unusedClientTtlSec, granted: o.refreshTokenTtlSec },
    machineClient: (id) => machines.find(id),
    machineRegistrationRefused: () =>
      new mod.errors.InvalidClientMetadata(
        'client_credentials clients are made for service accounts by org admins, and workloads use svc-workload: neither is registered',
      ),
    now: () => new Date(),
    clientRefused(err) {
      // RFC 7591 has no quota error: 503 with temporarily_unavailable (RFC 6749 4.1.2.1) says
      // "not now", and oidc-provider answers it as is (expose) instead of a bare server_error.
      o.log(`oauth: registration refused: ${err instanceof Error ? err.message.slice(0, 200) : 'the client could not be stored'}`);
      const refusal = new mod.errors.OIDCProviderError(503, 'temporarily_unavailable');
      return Object.assign(refusal, {
        expose: true,
        error_description: 'the server takes no more client registrations now; try again later',
      });
    },
  });

  // RFC 8628 section 5.1: at most 10 wrong user codes per client address in 10 minutes.
  const attempts = userCodeAttempts(10, 600_000, () => Date.now());
  async function clientView(clientId: string): Promise<ClientView> {
    // Called per request only, once `provider` below exists.
    const client = await provider.Client.find(clientId).catch(() => undefined);
    const name = (client?.clientName ?? clientId).slice(0, 200);
    const site = documents !== undefined && isDocumentClientId(clientId) ? new URL(clientId).host : undefined;
    return { id: clientId, name, site, firstParty: isCliClient(o.cli, clientId) };
  }
  // Read once: whether the Auth trusts workloads is fixed when it is made.
  const workloads = internalsOf(o.auth)?.workloads === true;
  const configuration = providerConfiguration(o, secrets, Adapter, mod.errors, {
    workloads,
    clientView,
    wrongUserCode: (ctx) => attempts.failed(attemptAddress(ctx.req, o.trustProxy)),
    async usableGrant(grantId) {
      if (await records.grantActive(grantId)) return true;
      await dropGrant(grantId);
      return false;
    },
    async accessToken(_ctx, token, payload) {
      // A client-credentials token speaks for the service account its client belongs to (machines/).
      const account = token.grantId === undefined ? machines.accountOf(token.clientId) : null;
      if (account !== null) {
        payload.sub = account;
        // None asked is all the account's role allows now (its client's scope); more than that was refused as
        // invalid_scope (W2: capped at issuance), and the live role caps it again at each use.
        if (typeof payload.scope !== 'string' || payload.scope.trim() === '') {
          payload.scope = (await machines.find(token.clientId ?? ''))?.scope ?? '';
        }
        return records.machineToken({
          jti: token.jti,
          accountId: account,
          clientId: token.clientId ?? '',
          exp: payload.exp as number | undefined,
        });
      }
      return records.accessToken({
        jti: token.jti,
        grantId: token.grantId,
        accountId: token.accountId,
        exp: payload.exp as number | undefined,
      });
    },
  });
  const provider = new mod.default(o.issuer, configuration);
  provider.proxy = o.trustProxy;
  // RFC 7523 for workloads (machines/workloads.ts): listed in the metadata's grant_types_supported once registered.
  if (workloads)
    provider.registerGrantType(JWT_BEARER_GRANT, jwtBearerHandler(o.auth, o.resources, mod.errors), ['assertion', 'scope', 'resource']);
  // A stored client's secret is its hash (storage/adapter.ts): the presented one is hashed to compare.
  (provider.Client.prototype as { compareClientSecret(this: { clientSecret?: string }, actual: string): boolean }).compareClientSecret =
    function compareClientSecret(actual) {
      return matchesClientSecret(this.clientSecret, actual);
    };
  // Koa prints unhandled errors with their stack on stderr by default; the server logs one line instead.
  (provider as unknown as { on(event: 'error', fn: (err: unknown) => void): void }).on('error', (err: unknown) =>
    o.log(`oauth: error: ${err instanceof Error ? err.name : 'unknown'}`),
  );
  provider.on('server_error', (ctx: KoaContextWithOIDC, err: unknown) =>
    o.log(`oauth: server_error on ${ctx.method} ${ctx.path}: ${err instanceof Error ? err.name : 'unknown'}`),
  );
  const methods = allowedMethods(o.prefix);
  const resumes = [`${routesOf(o.prefix).authorization}/`, `${routesOf(o.prefix).code_verification}/`];
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      // oidc-provider 9.13 answers a request that continues a flow without its cookie (a resume
      // link, a device form) with its error page, then fails saving a session it never made: the
      // answer already written stands.
      if (err instanceof TypeError && /persist can only be called/.test(err.message) && ctx.body != null && ctx.status < 500) return;
      // A resume link without its interaction (opened in another browser, expired, made up) can fail
      // inside oidc-provider's error handler: it is the person's page that expired, not a server fault.
      if (resumes.some((r) => ctx.path.startsWith(r))) {
        ctx.status = 400;
        ctx.set(pageHeaders(o.look));
        ctx.body = errorPage(
          o.look,
          'Sign-in expired',
          'This sign-in has expired or was started in another browser. Go back to the app and start again.',
        );
        return;
      }
      // What else escapes oidc-provider's own error handling (a fault of its or ours): server_error per
      // RFC 6749 5.2, one line in the log, instead of Koa's text and its stack on stderr.
      o.log(`oauth: server_error on ${ctx.method} ${ctx.path.slice(0, 200)}: ${err instanceof Error ? err.name : 'unknown'}`);
      ctx.status = 500;
      ctx.set('cache-control', 'no-store');
      ctx.body = { error: 'server_error', error_description: 'the server could not complete the request' };
      return;
    }
    if (ctx.status === 404 && ctx.body == null && (ctx as Partial<KoaContextWithOIDC>).oidc === undefined) {
      // No route matched: an OAuth-shaped answer, not Koa's text.
      const allow = methods.get(ctx.path);
      ctx.status = allow === undefined ? 404 : 405;
      if (allow !== undefined) ctx.set('allow', allow);
      ctx.body = { error: 'invalid_request', error_description: allow === undefined ? 'no such endpoint' : `use ${allow}` };
      return;
    }
    if (ownDeviceLinkPage(o, ctx as KoaContextWithOIDC)) return;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status !== 200 || typeof body !== 'object' || body === null) return;
    const route = (ctx as KoaContextWithOIDC).oidc?.route;
    if (route === 'discovery') {
      // oidc-provider lists its static scopes (openid, offline_access too): clients read the seven permissions.
      body.scopes_supported = [...PERMISSIONS];
      body.client_id_metadata_document_supported = documents !== undefined;
    } else if (route === 'device_authorization') {
      body.interval = o.devicePollIntervalSec;
    } else if (route === 'token' && machines.accountOf((ctx as KoaContextWithOIDC).oidc.client?.clientId) !== null && !body.scope) {
      body.scope = PERMISSIONS.join(' ');
    } else if (route === 'token' && isCliClient(o.cli, (ctx as KoaContextWithOIDC).oidc.client?.clientId)) {
      // The command line's token carries no scope (cli-client.ts): its answer does not claim one either.
      delete body.scope;
    }
  });

  const interactions = interactionRoutes({
    provider,
    options: o,
    formKey: Buffer.from(secrets.formKey, 'base64url'),
    clientView,
    granted: (grant) => records.granted(grant),
    // Only the record ends here: the interaction being finished still names the old grant, so
    // its artifacts go when its refresh token is next presented (records.accessToken drops them).
    replaced: (grantId) => records.grantRevoked(grantId),
    attempts,
  });
  // Only the public members: what GET <prefix>/jwks publishes (secrets.ts makes Ed25519 keys).
  const publicKeys = secrets.signingKeys.map(({ kty, crv, x, kid, alg, use }) => ({ kty, crv, x, kid, alg, use }));
  return Object.freeze({ ...mount(o, provider, interactions), publicJwks: () => ({ keys: structuredClone(publicKeys) }) });
}
