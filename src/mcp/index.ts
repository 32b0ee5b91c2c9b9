/**
 * `svc-auth/mcp`: svc-auth credentials (PATs, sessions) on an MCP server built
 * with the official MCP TypeScript SDK (`@modelcontextprotocol/sdk` 1.x, an
 * optional peer dependency; a 2.x `@modelcontextprotocol/server` McpServer
 * works with it too). A token verifier for the SDK's own bearer
 * middleware, the principal inside tool handlers, tool-level authorization on
 * the tool's real arguments, per-credential tool visibility, Protected
 * Resource Metadata (RFC 9728), and ready `/mcp` handlers for node:http and
 * fetch runtimes.
 * @module
 */
export {
  mcpTokenVerifier,
  mcpPrincipal,
  DEFAULT_RENEW_HINT,
  type McpVerifierOptions,
  type AuthInfo,
  type OAuthTokenVerifier,
} from './auth-info';
export { guardTool, canUseTool, toolError, TOOL_ERROR_META, type McpToolPolicy, type McpToolExtra, type GuardedToolHandler } from './tools';
export { protectedResourceMetadata, resourceMetadataUrl, type ProtectedResourceMetadata, type ProtectedResourceOptions } from './metadata';
export { mcpHandlers, type McpHandlerOptions, type McpHandlers, type McpEndpoint, type McpServerLike } from './handler';
