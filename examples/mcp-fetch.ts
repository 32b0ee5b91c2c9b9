// fetch Request handlers, here in Hono; Bun, Deno and Cloudflare Workers take h.mcp.fetch and h.metadata.fetch as they are.
import { Hono } from 'hono';
import type { Auth, Principal } from 'svc-auth';
import { mcpHandlers, type McpServerLike } from 'svc-auth/mcp';

// resource: the endpoint's public URL (say https://svc.example/mcp). Behind a proxy the request's own URL
// is not it; it is also the one origin, besides allowedOrigins, a browser page may call /mcp from.
export function createMcpApp(auth: Auth, buildServer: (principal: Principal) => McpServerLike, resource: string): Hono {
  const h = mcpHandlers({ auth, server: buildServer, resource });
  const app = new Hono();
  app.all('/mcp', (c) => h.mcp.fetch(c.req.raw));
  app.get('/.well-known/oauth-protected-resource/mcp', (c) => h.metadata.fetch(c.req.raw));
  return app;
}
