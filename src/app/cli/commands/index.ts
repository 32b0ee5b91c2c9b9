/**
 * The `svc` subcommands, one file per command group.
 * @module
 */
export { authCommands } from './auth';
export { memberCommands } from './member';
export { orgCommands } from './org';
export { mcpBridgeCommand } from './mcp-bridge';
export { proofCommand } from './proof';
export { serveCommand } from './serve';
export { tokenCommands } from './token';
