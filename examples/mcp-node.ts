/**
 * An MCP endpoint on plain node:http, authenticated with svc-auth PATs.
 * Run: `npx tsx examples/mcp-node.ts` (PORT=0 picks a free port). It prints
 * one JSON line: the endpoint URL and two demo tokens it just created.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpNodeHandlers } from 'svc-auth/mcp';
import { buildServer, demoAuth } from './mcp-tools';

const { auth, tokens } = await demoAuth();
const mcp = mcpNodeHandlers({ auth, server: (principal) => buildServer(auth, principal) });

const http = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/mcp') void mcp.mcp(req, res);
  else if (path === '/.well-known/oauth-protected-resource/mcp') mcp.metadata(req, res);
  else res.writeHead(404).end();
});

http.listen(Number(process.env['PORT'] ?? 8080), '127.0.0.1', () => {
  const { port } = http.address() as AddressInfo;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, ...tokens }));
});
