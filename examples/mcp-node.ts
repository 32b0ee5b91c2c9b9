// node:http: the /mcp endpoint and its Protected Resource Metadata on a plain server.
import { createServer, type Server } from 'node:http';
import type { Auth, Principal } from 'svc-auth';
import { mcpHandlers, type McpServerLike } from 'svc-auth/mcp';

export function createMcpApp(auth: Auth, buildServer: (principal: Principal) => McpServerLike): Server {
  const h = mcpHandlers({
    auth,
    server: buildServer,
    // Browser pages allowed to call /mcp besides the endpoint's own origin (403 for any other Origin).
    allowedOrigins: ['http://localhost:6274'],
  });
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    // h.mcp.node never rejects: every failure is an HTTP answer. In Express: app.all('/mcp', h.mcp.node).
    if (path === '/mcp') void h.mcp.node(req, res);
    else if (path === '/.well-known/oauth-protected-resource/mcp') h.metadata.node(req, res);
    else res.writeHead(404).end();
  });
}
