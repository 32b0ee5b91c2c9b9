/**
 * The oidc-provider configuration of the server, as data: what is on (code
 * flow with PKCE S256, DCR for public and confidential clients, resource
 * indicators with JWT access tokens, refresh rotation, revocation, device
 * flow), what is off (implicit, PAR, userinfo, logout pages, introspection,
 * DPoP, dev interactions),
 * every lifetime, and the few functions that say this server's rules.
 * @module
 */
import { createHmac } from 'node:crypto';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { DPOP_ALGORITHMS } from '../tokens';
import { PERMISSIONS } from '../core/vocabulary';
import type { ResolvedOptions } from './options';
import type { AdapterClass, OAuthSecrets } from './storage';
import { applyScopeRule, cliClientMetadata, imitatesCli, isCliClient } from './cli-client';
import { workloadClientMetadata } from './machines';
import {
  deviceConfirmPage,
  deviceDonePage,
  deviceInputPage,
  errorPage,
  pageHeaders,
  permissionsIn,
  type ClientView,
  type Look,
} from './pages';

/** @internal The oidc-provider error classes the configuration throws. */
export interface ProviderErrors {
  InvalidTarget: new (description: string) => Error;
  InvalidRequest: new (description: string) => Error;
  InvalidClientMetadata: new (description: string) => Error;
}

/** @internal Hooks the server adds to the configuration (session records). */
export interface ConfigHooks {
  /** The existing grant may be reused (no consent asked) only while its record is live; else it is dropped. */
  usableGrant(grantId: string): Promise<boolean>;
  /** Who a client is, as the pages show it. */
  clientView(clientId: string): Promise<ClientView>;
  /** A wrong user code was entered on the device page from this request's address. */
  wrongUserCode(ctx: KoaContextWithOIDC): void;
  /** Called with each JWT access token just before it is signed; may reject to refuse the token. */
  accessToken(
    ctx: KoaContextWithOIDC,
    token: { jti: string; grantId?: string | undefined; accountId?: string | undefined; clientId?: string | undefined },
    payload: Record<string, unknown>,
  ): Promise<void>;
  /** The `Auth` trusts workloads: the static `svc-workload` client is there for the JWT bearer grant. */
  readonly workloads: boolean;
}

const SCOPE = PERMISSIONS.join(' ');

/** The errors a person meets on a page, in words; the server's own description follows in brackets. */
const ERROR_WORDS: Readonly<Record<string, string>> = {
  invalid_client: 'The app that sent you here is not known to this server.',
  invalid_redirect_uri: 'The app asked to send you back to an address it did not register, so you were not sent there.',
  invalid_request: 'The app sent a request this server cannot use.',
  server_error: 'Something went wrong on this server.',
};

/** Endpoint paths under the prefix. */
export function routesOf(prefix: string): Record<string, string> {
  return {
    authorization: `${prefix}/authorize`,
    token: `${prefix}/token`,
    registration: `${prefix}/register`,
    jwks: `${prefix}/jwks`,
    revocation: `${prefix}/revoke`,
    device_authorization: `${prefix}/device_authorization`,
    code_verification: `${prefix}/device`,
    end_session: `${prefix}/logout`,
    userinfo: `${prefix}/userinfo`,
    introspection: `${prefix}/introspect`,
    pushed_authorization_request: `${prefix}/par`,
    backchannel_authentication: `${prefix}/backchannel`,
    challenge: `${prefix}/challenge`,
    credential: `${prefix}/credential`,
  };
}

function setPage(ctx: KoaContextWithOIDC, html: string, look: Look): void {
  for (const [k, v] of Object.entries(pageHeaders(look))) ctx.set(k, v);
  ctx.body = html;
}

/**
 * @internal A link with the code (`verification_uri_complete`) gets this server's own page, the
 * code filled in, instead of oidc-provider's "Submitting Callback" page, which posts itself by an
 * inline script and has none of the pages' headers: the person presses Continue. `true` when the
 * answer was replaced.
 */
export function ownDeviceLinkPage(o: ResolvedOptions, ctx: KoaContextWithOIDC): boolean {
  const oidc = (ctx as Partial<KoaContextWithOIDC>).oidc;
  if (oidc?.route !== 'code_verification' || ctx.method !== 'GET' || ctx.status !== 200) return false;
  const code = oidc.params?.user_code;
  const secret = (oidc.session?.state as { secret?: unknown } | undefined)?.secret;
  if (typeof code !== 'string' || code === '' || typeof secret !== 'string') return false;
  ctx.remove('content-security-policy');
  setPage(ctx, deviceInputPage(o.look, oidc.urlFor('code_verification'), secret, undefined, code), o.look);
  return true;
}

/** 32 bytes for oidc-provider's stateless DPoP nonces, derived from the first cookie key (shared by every instance). */
function dpopNonceSecret(secrets: OAuthSecrets): Buffer {
  return createHmac('sha256', secrets.cookieKeys[0] ?? '')
    .update('svc-auth dpop nonce')
    .digest();
}

/** @internal The configuration handed to `new Provider(issuer, configuration)`. */
export function providerConfiguration(
  o: ResolvedOptions,
  secrets: OAuthSecrets,
  Adapter: AdapterClass,
  errors: ProviderErrors,
  hooks: ConfigHooks,
): Configuration {
  const clientName = (ctx: KoaContextWithOIDC): string => ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId ?? 'the app';
  return {
    adapter: Adapter,
    // The command line's first-party client (cli-client.ts), when `clients.cli` is on.
    // The workloads' client (machines/workloads.ts), when the Auth trusts workloads.
    clients: [...(o.cli ? [cliClientMetadata()] : []), ...(hooks.workloads ? [workloadClientMetadata()] : [])],
    jwks: { keys: secrets.signingKeys },
    cookies: {
      keys: [...secrets.cookieKeys],
      names: { session: 'svc_oauth_session', interaction: 'svc_oauth_interaction', resume: 'svc_oauth_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    // Browser clients (a web MCP inspector) may call the token endpoint from the origin of one of their
    // redirect URIs; only public ones: a confidential client's secret has no place in a browser.
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    // The command line's name is the server's own: no other client may take it (or one like it).
    extraClientMetadata: {
      properties: ['client_name'],
      validator(_ctx, key, value, metadata) {
        if (key === 'client_name' && metadata.client_id !== cliClientMetadata().client_id && imitatesCli(value))
          throw new errors.InvalidClientMetadata('client_name imitates the svc command line, whose name is reserved');
      },
    },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    claims: { openid: ['sub'] },
    // The seven permissions are listed as scopes of their own (not only the resources') so that
    // a client may register with them; a registered `scope` is not kept as a limit (storage/adapter.ts).
    scopes: ['openid', 'offline_access', ...PERMISSIONS],
    responseTypes: ['code'],
    // Public clients (`none`, the default when a registration names none), confidential ones with a
    // secret (hosted MCP connectors), and `private_key_jwt` for metadata documents with their keys.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'EdDSA',
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['EdDSA'],
      clientAuthSigningAlgValues: ['ES256', 'EdDSA', 'PS256', 'RS256'],
      // The algorithms the resources take (tokens/dpop): the two metadata documents advertise the same list.
      dPoPSigningAlgValues: [...DPOP_ALGORITHMS],
    },
    pkce: { required: () => true },
    routes: routesOf(o.prefix),
    interactions: { url: (_ctx, interaction) => `${o.prefix}/interaction/${interaction.uid}` },
    // `state` is optional (OAuth 2.1 4.1.1): PKCE S256, always required, already stops CSRF on the
    // client's redirect. A request that names no svc permission asks for all seven (what the user's
    // roles allow), shown as such on the consent page.
    extraParams: {
      scope(ctx, value) {
        const asked = typeof value === 'string' ? value.split(' ') : [];
        if (ctx.oidc.params !== undefined && !asked.some((s) => (PERMISSIONS as readonly string[]).includes(s)))
          ctx.oidc.params.scope = [...asked.filter(Boolean), ...PERMISSIONS].join(' ');
      },
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: o.registration, initialAccessToken: false, issueRegistrationAccessToken: false },
      // A token of another client is not revoked, and the answer is the same 200 (RFC 7009 2.2): no oracle.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      claimsParameter: { enabled: false },
      introspection: { enabled: false },
      // Only service accounts' machine clients have the grant (machines/): registration refuses it (storage/adapter.ts).
      clientCredentials: { enabled: true },
      // A client that sends a proof gets tokens bound to its key (cnf.jkt), refresh tokens too, which the
      // resources check (RFC 9449). The nonce secret comes from the stored secrets, so every instance
      // sharing them takes every other's nonces; nonces are offered, not required.
      dPoP: { enabled: true, nonceSecret: dpopNonceSecret(secrets), requireNonce: () => false, allowReplay: false },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: (ctx, form, _out, err) => {
          if ((err as { name?: unknown } | undefined)?.name === 'NotFoundError') hooks.wrongUserCode(ctx);
          setPage(ctx, deviceInputPage(o.look, ctx.oidc.urlFor('code_verification'), form, err), o.look);
        },
        // The page says who asks and what signing in will allow: a person sent someone else's code learns it here.
        async userCodeConfirmSource(ctx, form, client, _info, userCode) {
          const scope = (ctx.oidc.entities as { DeviceCode?: { params?: { scope?: unknown } } }).DeviceCode?.params?.scope;
          const asked = permissionsIn(typeof scope === 'string' ? scope.split(' ') : []);
          const view = await hooks.clientView(client.clientId);
          setPage(ctx, deviceConfirmPage(o.look, ctx.oidc.urlFor('code_verification'), form, view, userCode, asked), o.look);
        },
        successSource: (ctx) => setPage(ctx, deviceDonePage(o.look, clientName(ctx)), o.look),
      },
      resourceIndicators: {
        enabled: true,
        // The command line's tokens are for the API (the issuer itself), never for another resource.
        defaultResource: (_ctx, client, oneOf) => oneOf ?? (isCliClient(o.cli, client.clientId) ? o.issuer : o.resources[0]),
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator, client) {
          if (!o.resources.includes(indicator)) throw new errors.InvalidTarget('this server issues tokens for its own resources only');
          if (isCliClient(o.cli, client.clientId) && indicator !== o.issuer)
            throw new errors.InvalidTarget('the svc command line gets tokens for the API resource only');
          return {
            scope: SCOPE,
            audience: indicator,
            accessTokenFormat: 'jwt',
            accessTokenTTL: o.accessTokenTtlSec,
            jwt: { sign: { alg: 'EdDSA' } },
          };
        },
      },
    },
    formats: {
      customizers: {
        async jwt(ctx, token, jwt) {
          const t = token as unknown as { jti: string; grantId?: string; accountId?: string; clientId?: string };
          applyScopeRule(o.cli, t.clientId, jwt.payload);
          await hooks.accessToken(ctx, t, jwt.payload);
        },
      },
    },
    // An existing grant skips the consent page only while its session record is live: a grant the
    // person ended (sessions.revoke, svc auth sessions) is asked for again, not silently reused.
    // The device flow never reuses one (rule P1): anyone can start a device authorization as any
    // public client and mail its link, so the consent page, with its warning, is shown every time
    // and only the grant approved on it is used.
    async loadExistingGrant(ctx) {
      const decided = ctx.oidc.result?.consent?.grantId;
      const device = ctx.oidc.route === 'code_verification' || ctx.oidc.route === 'device_resume';
      const grantId = decided ?? (device ? undefined : ctx.oidc.session?.grantIdFor(ctx.oidc.client?.clientId ?? ''));
      if (typeof grantId !== 'string') return undefined;
      const grant = await ctx.oidc.provider.Grant.find(grantId);
      if (grant === undefined || !(await hooks.usableGrant(grantId))) return undefined;
      // What the person unticked before is asked again when a new request asks for it (step-up),
      // not refused unasked; the grant just decided keeps its refusals, or the page would loop.
      if (decided === undefined) (grant as { rejected?: unknown }).rejected = undefined;
      return grant;
    },
    rotateRefreshToken: true,
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: o.accessTokenTtlSec,
      AuthorizationCode: 60,
      ClientCredentials: o.accessTokenTtlSec,
      DeviceCode: 600,
      Grant: o.refreshTokenTtlSec,
      IdToken: 3_600,
      Interaction: 600,
      RefreshToken: o.refreshTokenTtlSec,
      Session: 86_400,
    },
    renderError(ctx, out) {
      ctx.type = 'html';
      const error = String(out.error);
      const detail = typeof out.error_description === 'string' ? out.error_description : 'The request could not be completed.';
      const said = ERROR_WORDS[error];
      setPage(ctx, errorPage(o.look, `Sign-in failed (${error})`, said === undefined ? detail : `${said} (${detail})`), o.look);
    },
  };
}
