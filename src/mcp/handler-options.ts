/**
 * The options of the `/mcp` handlers (handler.ts), as a type and the set of
 * their names; what they mean is checked once, in handler-core.ts.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Principal } from '../core/policy';
import type { Auth } from '../service';
import type { AuthInfo } from './auth-info';

/**
 * What the handlers need of an MCP server: the SDK's `McpServer` (or low-level
 * `Server`) fits, of 1.x (`@modelcontextprotocol/sdk`) and of 2.x
 * (`@modelcontextprotocol/server`) alike.
 *
 * @example
 * ```ts
 * // The SDK's `new McpServer({ name: 'my-service', version: '1.0.0' })` is one.
 * async function serve(server: McpServerLike, transport: Parameters<McpServerLike['connect']>[0]): Promise<void> {
 *   await server.connect(transport);
 * }
 * ```
 */
export interface McpServerLike {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/**
 * Options of {@link mcpHandlers}.
 *
 * @example
 * ```ts
 * const options: McpHandlerOptions = {
 *   auth,
 *   server: (principal) => buildMcpServer(principal), // a new McpServer with the tools this credential can use
 *   resource: 'https://svc.example/mcp',
 *   allowedOrigins: ['https://app.svc.example'], // a browser client on another origin
 * };
 * ```
 */
export interface McpHandlerOptions {
  auth: Auth;
  /** Build the MCP server for one authenticated request (register only the tools `canUseTool` allows). */
  server: (principal: Principal, authInfo: AuthInfo) => McpServerLike | Promise<McpServerLike>;
  /**
   * The endpoint's public URL (`https://svc.example/mcp`). Default: taken from
   * the request (`Host` header, `http:` unless the socket is TLS): fine for a
   * dev instance, set it behind a proxy.
   */
  resource?: string | URL;
  /** OAuth authorization servers for the metadata. Omit on an instance without OAuth. */
  authorizationServers?: readonly (string | URL)[];
  /** A name for the metadata document. */
  resourceName?: string;
  /** The next step a person should take about a refused token (see `mcpTokenVerifier`). */
  renewHint?: string;
  /**
   * Browser origins allowed to call the endpoint besides its own
   * (`['https://app.example']`). A request whose `Origin` header is neither
   * gets 403 before its credential is read (DNS rebinding, MCP transport
   * security). Requests without `Origin` (every non-browser client) are not
   * affected. The endpoint's own origin is that of `resource`; without
   * `resource`, the request's own origin counts only when its host is an IP
   * literal or `localhost`. This adds no CORS headers.
   */
  allowedOrigins?: readonly (string | URL)[];
  /**
   * The largest request body `/mcp` reads, in bytes (1 to 104857600). Default
   * 1 MiB. A body over it is answered 413 before it is read whole (a declared
   * `Content-Length` over it before a byte is read), so no request can make the
   * server hold an unbounded body. A body a parser already read and left on
   * `req.body` is its parser's business.
   */
  maxBodyBytes?: number;
  /**
   * The permission each of the server's guarded tools needs
   * (`{ thing_put: { permission: 'repo:write' } }`; an {@link McpToolPolicy}
   * fits). A `tools/call` of a listed tool that this credential can never use
   * (the tools `canUseTool` hides) is answered here with a tool error naming
   * the permission, instead of the SDK's "Tool thing_put not found". When
   * the credential is an OAuth token whose granted scope alone leaves the
   * permission out (the user's role allows it; `canUseTool` lists such a
   * tool), the answer is an HTTP 403 with
   * `WWW-Authenticate: Bearer error="insufficient_scope", scope="<granted plus
   * needed>"`, so that the client asks the user for more (the MCP scope
   * challenge). An entry with a `resource` function (an `McpToolPolicy` has
   * one) lets that check ask about the call's own resource: it is called with
   * the call's raw arguments, before the tool's schema checks them, and a
   * throw or a result that is not a string counts as "not known".
   */
  tools?: Readonly<Record<string, { readonly permission: string; readonly resource?: (args: never) => unknown }>>;
  /**
   * The svc permissions an MCP client should ask for when it first signs in
   * with OAuth: the `scope` attribute of every 401 of `/mcp` (MCP
   * authorization 2025-11-25). Default: the read permissions (`repo:read`,
   * `org:read`) that `tools` names, or all it names when none is a read;
   * without `tools`, none. `[]` for no `scope` attribute (clients then ask for
   * `scopes_supported`). A person approves more when a call needs it (the 403
   * step-up challenge of `tools`). The metadata's `scopes_supported` lists
   * these and every permission `tools` names.
   */
  scopes?: readonly string[];
  /** Called with the original error whenever the answer is a 5xx, to log what the client is never shown. */
  onError?: (err: unknown) => void;
  /**
   * The address of the connection's peer, for `allowedIps` and the last-used
   * addresses (`createAuth({ trustProxy })` applies to it). The node handlers
   * read the socket when it is absent; a fetch `Request` carries no address,
   * so the fetch handlers need it (Bun: `server.requestIP(req)?.address`):
   * without it a token with `allowedIps` is refused there (403). A function
   * that throws, or returns something that is not an address, means "unknown".
   */
  clientAddress?: (req: IncomingMessage | Request) => string | undefined;
}

/** @internal the names of {@link McpHandlerOptions}: any other key is refused. */
export const OPTION_KEYS = new Set([
  'auth',
  'server',
  'resource',
  'authorizationServers',
  'resourceName',
  'renewHint',
  'allowedOrigins',
  'maxBodyBytes',
  'tools',
  'scopes',
  'onError',
  'clientAddress',
]);
