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
  mcpHandlers,
  type McpVerifierOptions,
  type AuthInfo,
  type OAuthTokenVerifier,
  type McpToolPolicy,
  type McpToolExtra,
  type GuardedToolHandler,
  type ProtectedResourceMetadata,
  type ProtectedResourceOptions,
  type McpHandlerOptions,
  type McpHandlers,
  type McpEndpoint,
  type McpServerLike,
} from '../mcp';
