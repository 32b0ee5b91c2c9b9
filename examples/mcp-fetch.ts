/**
 * The same MCP endpoint as a fetch `Request` handler (here in Hono, served on
 * node by @hono/node-server; the handlers work unchanged on Bun, Deno or
 * Cloudflare Workers). Run: `npx tsx examples/mcp-fetch.ts` (PORT=0 picks a
 * free port). It prints one JSON line: the endpoint URL and two demo tokens.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mcpFetchHandlers } from 'svc-auth/mcp';
import { buildServer, demoAuth } from './mcp-tools';

const { auth, tokens } = await demoAuth();
const mcp = mcpFetchHandlers({ auth, server: (principal) => buildServer(auth, principal) });

const app = new Hono();
app.all('/mcp', (c) => mcp.mcp(c.req.raw));
app.get('/.well-known/oauth-protected-resource/mcp', (c) => mcp.metadata(c.req.raw));

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env['PORT'] ?? 8080) }, ({ port }) => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, ...tokens }));
});
