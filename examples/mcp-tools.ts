// The MCP server of one credential: only the tools it can ever use, each authorized on its real arguments.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Auth, Principal } from 'svc-auth';
import { canUseTool, guardTool, mcpPrincipal, type McpToolPolicy } from 'svc-auth/mcp';

type RepoArgs = { org: string; repo: string };

const readRepo: McpToolPolicy<RepoArgs> = { permission: 'repo:read', resource: (a) => `${a.org}/${a.repo}` };
const writeRepo: McpToolPolicy<RepoArgs> = { permission: 'repo:write', resource: (a) => `${a.org}/${a.repo}` };
const notes = new Map<string, string>();

export function buildServer(auth: Auth, principal: Principal): McpServer {
  const server = new McpServer({ name: 'example', version: '1.0.0' });

  server.registerTool('whoami', { description: 'Who is calling.', inputSchema: {} }, (_args, extra) => {
    const p = mcpPrincipal(extra.authInfo);
    return { content: [{ type: 'text', text: JSON.stringify({ user: p.userId, token: p.tokenName ?? null }) }] };
  });

  if (canUseTool(principal, readRepo)) {
    server.registerTool(
      'note_get',
      {
        description: 'Read the note of a repository.',
        inputSchema: { org: z.string(), repo: z.string() },
        // A refusal is still valid for clients that check results against this schema: errors carry no structuredContent.
        outputSchema: { text: z.string() },
      },
      guardTool(auth, readRepo, (a: RepoArgs) => {
        const text = notes.get(`${a.org}/${a.repo}`) ?? '';
        return { content: [{ type: 'text', text }], structuredContent: { text } };
      }),
    );
  }
  // A read-only PAT never sees this tool in tools/list. An OAuth token sees it when the person's role
  // allows it, and calling it beyond the grant is refused with the scope to ask for (step-up).
  if (canUseTool(principal, writeRepo)) {
    server.registerTool(
      'note_set',
      { description: 'Write the note of a repository.', inputSchema: { org: z.string(), repo: z.string(), text: z.string() } },
      guardTool(auth, writeRepo, (a: RepoArgs & { text: string }) => {
        notes.set(`${a.org}/${a.repo}`, a.text);
        return { content: [{ type: 'text', text: 'saved' }] };
      }),
    );
  }
  return server;
}
