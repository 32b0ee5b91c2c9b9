/**
 * `svc-auth/mcp`: svc-auth credentials on an MCP server built with the official
 * MCP TypeScript SDK.
 * @module
 */
export {
  mcpTokenVerifier,
  mcpPrincipal,
  DEFAULT_RENEW_HINT,
  guardTool,
  canUseTool,
  toolError,
  TOOL_ERROR_META,
  protectedResourceMetadata,
  resourceMetadataUrl,
  mcpNodeHandlers,
  mcpFetchHandlers,
  type McpVerifierOptions,
  type AuthInfo,
  type OAuthTokenVerifier,
  type McpToolPolicy,
  type McpToolExtra,
  type GuardedToolHandler,
  type ProtectedResourceMetadata,
  type ProtectedResourceOptions,
  type McpHandlerOptions,
  type McpNodeHandlers,
  type McpFetchHandlers,
  type McpServerLike,
} from '../mcp';
