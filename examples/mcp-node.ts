// node:http: the /mcp endpoint and its Protected Resource Metadata on a plain server.
import { createServer, type Server } from 'node:http';
import type { Auth, Principal } from 'svc-auth';
import { mcpNodeHandlers, type McpServerLike } from 'svc-auth/mcp';

export function createMcpApp(auth: Auth, buildServer: (principal: Principal) => McpServerLike): Server {
  const mcp = mcpNodeHandlers({
    auth,
    server: buildServer,
    // Browser pages allowed to call /mcp besides the endpoint's own origin (403 for any other Origin).
    allowedOrigins: ['http://localhost:6274'],
  });
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    // mcp() never rejects: every failure is an HTTP answer.
    if (path === '/mcp') void mcp.mcp(req, res);
    else if (path === '/.well-known/oauth-protected-resource/mcp') mcp.metadata(req, res);
    else res.writeHead(404).end();
  });
}
