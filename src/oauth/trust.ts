/**
 * How svc-auth accepts the server's tokens: as a trusted issuer (T10), once
 * per resource, since each token names one resource in its `aud`.
 * @module
 */
import { ValidationError } from '../errors';
import type { TrustedIssuer } from '../tokens';

/**
 * The `trustedIssuers` entry with which an `Auth` accepts the access tokens
 * this package's authorization server issues for `resource`: its issuer, the
 * resource as the audience, its JWKS (`<issuer><pathPrefix>/jwks`, so no
 * discovery is needed), its one algorithm (EdDSA) and `recorded` (a token
 * works only while its session record and its grant's are live: revoking the
 * grant ends it on its next request). With `jwks` (the server's
 * `publicJwks()`, in the same process) its keys are taken as given and its
 * JWKS is never fetched. Give each resource's
 * `Auth` its own entry: a token for `<base>/mcp` must not be accepted by the
 * `Auth` of `/api`, and the other way round.
 *
 * @throws ValidationError when `issuer` is not an origin or `resource` not a URL on it.
 * @example
 * ```ts
 * import { createAuth, generateKeyRing } from 'svc-auth';
 * import { trustedIssuerFor } from 'svc-auth/oauth';
 * const issuer = 'https://svc.example';
 * const keys = await generateKeyRing();
 * const mcpAuth = createAuth({ issuer: 'svc', keys, members, trustedIssuers: [trustedIssuerFor({ issuer, resource: `${issuer}/mcp` })] });
 * const apiAuth = createAuth({ issuer: 'svc', keys, members, trustedIssuers: [trustedIssuerFor({ issuer, resource: issuer })] });
 * ```
 */
export function trustedIssuerFor(options: {
  issuer: string;
  resource: string;
  pathPrefix?: string;
  jwks?: TrustedIssuer['jwks'];
}): TrustedIssuer {
  const { issuer, resource, pathPrefix = '/oauth', jwks } = options;
  const origin = typeof issuer === 'string' ? URL.parse(issuer)?.origin : undefined;
  if (origin === undefined || origin !== issuer)
    throw new ValidationError([{ path: 'issuer', message: 'must be the server’s issuer, an origin' }]);
  const url = typeof resource === 'string' ? URL.parse(resource) : null;
  if (url === null || url.origin !== origin)
    throw new ValidationError([{ path: 'resource', message: 'must be a URL on the issuer’s origin' }]);
  if (typeof pathPrefix !== 'string' || !/^(?:\/[A-Za-z0-9._-]+)+$/.test(pathPrefix)) {
    throw new ValidationError([{ path: 'pathPrefix', message: 'must be a path such as /oauth' }]);
  }
  // `<resource>/` is the same resource as `<resource>` (resources.ts): tokens carry the bare form.
  const audience = resource.endsWith('/') ? resource.slice(0, -1) : resource;
  // recorded: each token must have its session record, under its grant's (records.ts), read on every request.
  const keys = jwks === undefined ? { jwksUri: `${issuer}${pathPrefix}/jwks` } : { jwks };
  return { issuer, audience, ...keys, algorithms: ['EdDSA'], recorded: true };
}
