/**
 * The RFC 7523 JWT bearer grant (`urn:ietf:params:oauth:grant-type:jwt-bearer`)
 * for workloads (W3): a CI job or a cluster workload presents its own identity
 * token as the `assertion` and gets a short-lived token of the service account
 * its `trustedWorkloads` rule names, with no stored secret on its side.
 *
 * The exchange is the `Auth`'s own (`auth.exchangeWorkloadToken`): the same
 * verification, exact claim match, once-per-`jti` spending and account check
 * as in the library, so the two can never disagree. The token it answers with
 * is that exchange's: a PAT of the account, recorded, narrowed by the rule and
 * by `scope`, capped by the account's live role at each use, ended by
 * disabling the account on the next request.
 *
 * oidc-provider authenticates a client at its token endpoint before any grant
 * runs, while RFC 7523 makes client authentication optional: the grant is
 * offered to one static public client, `svc-workload`, which has nothing else
 * (no redirect URI, no other grant), so naming it grants nothing by itself.
 * Registration refuses the grant (storage/adapter.ts).
 * @module
 */
import type { ClientMetadata, KoaContextWithOIDC } from 'oidc-provider';
import { AuthenticationError, ForbiddenError, UnavailableError, ValidationError } from '../../errors';
import { formatScopeFlags, isFlagExpressible } from '../../core/scopes';
import type { Auth } from '../../service';

/** The grant type of RFC 7523 section 2.1. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The client id a workload names at the token endpoint (public: no secret; its identity token is its credential).
 *
 * @example
 * ```ts
 * import { WORKLOAD_CLIENT_ID } from 'svc-auth/oauth';
 * const form = new URLSearchParams({
 *   grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
 *   client_id: WORKLOAD_CLIENT_ID,
 *   assertion: 'eyJ...', // the CI job's OIDC token
 * });
 * ```
 */
export const WORKLOAD_CLIENT_ID = 'svc-workload';

/** @internal The static registration of the workloads' client, when the `Auth` trusts workloads. */
export function workloadClientMetadata(): ClientMetadata {
  return {
    client_id: WORKLOAD_CLIENT_ID,
    client_name: 'workloads (CI jobs and services with their own identity token)',
    grant_types: [JWT_BEARER_GRANT],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'none',
  };
}

/** @internal The oidc-provider errors the grant answers with. */
export interface GrantErrors {
  InvalidRequest: new (description: string) => Error;
  InvalidTarget: new (description: string) => Error;
  InvalidScope: new (description: string, scope: string) => Error;
  CustomOIDCProviderError: new (error: string, description: string) => Error;
  OIDCProviderError: new (status: number, error: string) => Error;
}

/** The longest assertion read: GitHub's tokens are about 1.5 KiB; far longer is refused unread. */
const MAX_ASSERTION = 16 * 1024;

/** The asked `scope` as `--scope` flag strings; `undefined` when none was asked. */
function askedFlags(scope: unknown): string[] | undefined {
  if (typeof scope !== 'string' || scope.trim() === '') return undefined;
  return scope.trim().split(/\s+/);
}

/** The token's scopes as the answer's `scope` (flag strings), when each can be written as one. */
function scopeText(scopes: Parameters<typeof formatScopeFlags>[0] | null): string | undefined {
  if (scopes === null || !scopes.every(isFlagExpressible)) return undefined;
  return formatScopeFlags(scopes).join(' ');
}

/**
 * @internal The grant handler: `assertion` (required), `scope` (`--scope` flags, space-separated, within the
 * rule's), `resource` (one of the server's resources; the token is good at all of them, as any token of the
 * `Auth` is).
 */
export function jwtBearerHandler(
  auth: Auth,
  resources: readonly string[],
  errors: GrantErrors,
): (ctx: KoaContextWithOIDC) => Promise<void> {
  return async (ctx) => {
    const params = ctx.oidc.params as Record<string, unknown>;
    const assertion = params.assertion;
    if (typeof assertion !== 'string' || assertion === '') throw new errors.InvalidRequest("missing required parameter 'assertion'");
    if (assertion.length > MAX_ASSERTION) throw new errors.CustomOIDCProviderError('invalid_grant', 'the assertion is too large');
    const resource = params.resource;
    if (resource !== undefined && (typeof resource !== 'string' || !resources.includes(resource))) {
      throw new errors.InvalidTarget('this server issues tokens for its own resources only, one per request');
    }
    const flags = askedFlags(params.scope);
    let got: Awaited<ReturnType<Auth['exchangeWorkloadToken']>>;
    try {
      got = await auth.exchangeWorkloadToken(assertion, flags === undefined ? undefined : { scopes: flags });
    } catch (err) {
      throw refusal(err, errors, typeof params.scope === 'string' ? params.scope : '');
    }
    const expiresIn = Math.max(0, Math.round((got.expiresAt.getTime() - Date.now()) / 1000));
    const scope = scopeText(got.scopes);
    ctx.body = { access_token: got.token, token_type: 'Bearer', expires_in: expiresIn, ...(scope === undefined ? {} : { scope }) };
  };
}

/** The OAuth error of a refused exchange: its message (names claims, never their values) as the description. */
function refusal(err: unknown, errors: GrantErrors, scope: string): Error {
  if (err instanceof ValidationError) {
    const issue = err.issues[0];
    const text = issue === undefined ? err.message : issue.message;
    // Options' issues are about the asked scopes; anything else about the assertion itself.
    if (issue?.path[0] === 'scopes') return new errors.InvalidScope(`scope ${text}`, scope);
    return new errors.CustomOIDCProviderError('invalid_grant', `the assertion was refused: ${text}`);
  }
  if (err instanceof AuthenticationError || err instanceof ForbiddenError) {
    return new errors.CustomOIDCProviderError('invalid_grant', err.message);
  }
  if (err instanceof UnavailableError) {
    const e = new errors.OIDCProviderError(503, 'temporarily_unavailable');
    return Object.assign(e, { expose: true, error_description: 'the server cannot exchange tokens now; try again later' });
  }
  return err instanceof Error ? err : new Error('the exchange failed');
}
