/**
 * `svc-auth/oauth`: an OAuth 2.1 authorization server (oidc-provider, an
 * optional peer dependency: `npm install oidc-provider@9.13.3`; Node.js 20.18
 * or later) whose tokens svc-auth accepts. Its PostgreSQL storage,
 * `PostgresOAuthStorage`, is in `svc-auth/postgres` (with `pg`).
 *
 * @example
 * ```ts
 * import { createAuthorizationServer, MemoryOAuthStorage } from 'svc-auth/oauth';
 * const oauth = await createAuthorizationServer({ auth, issuer: 'http://127.0.0.1:8080', signIn: { users: () => ['alice'] }, storage: new MemoryOAuthStorage() });
 * ```
 * @module
 */
export {
  createAuthorizationServer,
  trustedIssuerFor,
  CLI_CLIENT_ID,
  WORKLOAD_CLIENT_ID,
  MemoryOAuthStorage,
  type AuthorizationServer,
  type AuthorizationServerOptions,
  type SignInOptions,
  type PickUserSignIn,
  type OwnSignIn,
  type ClientPolicy,
  type MetadataDocumentOptions,
  type PageOptions,
  type MemoryOAuthStorageOptions,
  type OAuthStorage,
  type OAuthEntry,
  type OAuthEntryKind,
  type OAuthSecrets,
} from '../oauth';
