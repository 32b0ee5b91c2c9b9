/**
 * `svc-auth/oauth`: an OAuth 2.1 authorization server for svc-auth's users,
 * built on oidc-provider (an optional peer dependency), for MCP clients and
 * command lines: metadata, client registration, code flow with PKCE, resource
 * indicators, refresh rotation, revocation, device flow, and the sign-in and
 * consent pages. Mounts on node:http (and Express, Fastify, Hono on node).
 * @module
 */
export { createAuthorizationServer } from './server';
export { trustedIssuerFor } from './trust';
export { CLI_CLIENT_ID } from './cli-client';
export { JWT_BEARER_GRANT, WORKLOAD_CLIENT_ID } from './machines';
export type {
  AuthorizationServer,
  AuthorizationServerOptions,
  SignInOptions,
  PickUserSignIn,
  OwnSignIn,
  ClientPolicy,
  MetadataDocumentOptions,
  PageOptions,
} from './types';
export {
  MemoryOAuthStorage,
  PostgresOAuthStorage,
  type MemoryOAuthStorageOptions,
  type PostgresOAuthStorageOptions,
  type OAuthStorage,
  type OAuthEntry,
  type OAuthEntryKind,
  type OAuthSecrets,
} from './storage';
