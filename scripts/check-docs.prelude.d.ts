// Free names that documentation snippets use without declaring them, typed with the package's public
// types only (scripts/check-docs.mjs compiles every example with this file beside it).
import type { Auth, AuthEvent, Principal, KeyRing, TokenStore, MembershipStore, Grant, UserRoles, Scope, TokenRecord } from 'svc-auth';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import type { PostgresTokenStore } from 'svc-auth/postgres';
import type { McpServerLike } from 'svc-auth/mcp';
import type { AuthorizationServer } from 'svc-auth/oauth';
import type { PublicJwk } from 'svc-auth/stores';

declare global {
  const auth: Auth;
  const token: string;
  const principal: Principal;
  const keys: KeyRing;
  const ring: KeyRing;
  const store: TokenStore;
  const members: MembershipStore;
  const grant: Grant;
  const roles: UserRoles;
  const scopes: Scope[];
  const record: TokenRecord;
  const err: unknown;
  const req: IncomingMessage;
  const res: ServerResponse;
  const request: Request;
  const pool: Pool;
  const tokenId: string;
  const text: string;
  const line: string;
  const ownScopes: Scope[];
  const parentScopes: Scope[];
  const pgStore: PostgresTokenStore;
  /** A secret manager. */
  const secrets: { put(name: string, value: string): Promise<void>; get(name: string): Promise<string> };
  /** The application's own request handler. */
  function handle(request: Request): Promise<Response>;
  function renew(): void;
  /** The audit event an `onEvent` hook received. */
  const e: AuthEvent;
  /** The application's own logger. */
  function log(...fields: unknown[]): void;
  /** The application's own alerting (a pager, a chat channel). */
  function alert(...fields: unknown[]): void;
  /** The application's own audit table. */
  const audit: { insert(event: AuthEvent): Promise<void> };
  /** One line, and a whole text, of an application log. */
  const logLine: string;
  const logText: string;
  /** An org owner's and a member's principals (organization governance, issue 30). */
  const owner: Principal;
  const member: Principal;
  /** An org admin's principal (service accounts) and a machine client's public key. */
  const admin: Principal;
  const publicJwk: PublicJwk;
  /** A workload's identity token (a GitHub Actions OIDC JWT). */
  const githubOidcJwt: string;
  /** Builds the MCP server (tools) for one credential. */
  function buildMcpServer(principal: Principal): McpServerLike;
  /** An authorization server (`svc-auth/oauth`) built with createAuthorizationServer. */
  const oauth: AuthorizationServer;
  /** The application's own sign-in sessions (its cookie to a user id). */
  const mySessions: { userOf(cookie: string | undefined): string | undefined };
}
