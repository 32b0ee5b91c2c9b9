/**
 * The MCP server of the two examples (mcp-node.ts, mcp-fetch.ts): one
 * `McpServer` per authenticated request, holding only the tools that
 * credential can ever use, each tool authorized on its real arguments.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createAuth, generateKeyRing, type Auth, type Principal } from 'svc-auth';
import { canUseTool, guardTool, mcpPrincipal, type McpToolPolicy } from 'svc-auth/mcp';

type RepoArgs = { org: string; repo: string };

const readRepo: McpToolPolicy<RepoArgs> = { permission: 'repo:read', resource: (a) => `${a.org}/${a.repo}` };
const writeRepo: McpToolPolicy<RepoArgs> = { permission: 'repo:write', resource: (a) => `${a.org}/${a.repo}` };
const notes = new Map<string, string>();

/** Build the MCP server for one credential. */
export function buildServer(auth: Auth, principal: Principal): McpServer {
  const server = new McpServer({ name: 'example', version: '1.0.0' });

  server.registerTool('whoami', { description: 'Who is calling.', inputSchema: {} }, (_args, extra) => {
    const p = mcpPrincipal(extra.authInfo);
    return { content: [{ type: 'text', text: JSON.stringify({ user: p.userId, token: p.tokenName ?? null }) }] };
  });

  if (canUseTool(principal, readRepo)) {
    server.registerTool(
      'note_get',
      { description: 'Read the note of a repository.', inputSchema: { org: z.string(), repo: z.string() } },
      guardTool(auth, readRepo, (a: RepoArgs) => ({ content: [{ type: 'text', text: notes.get(`${a.org}/${a.repo}`) ?? '' }] })),
    );
  }
  // A read-only token never sees this tool in tools/list.
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

/** An in-memory auth where alice is an editor of acme, and two PATs of hers to try: read-only and read-write. */
export async function demoAuth(): Promise<{ auth: Auth; tokens: { reader: string; writer: string } }> {
  const auth = createAuth({
    issuer: 'http://127.0.0.1',
    keys: await generateKeyRing(),
    members: { rolesOf: () => ({ orgs: { acme: 'editor' } }) },
  });
  const alice = auth.client(await auth.authenticate(await auth.issueSession('alice')));
  const reader = await alice.token.create({ name: 'reader', scopes: [{ resource: 'acme/web', permissions: ['repo:read'] }] });
  const writer = await alice.token.create({ name: 'writer', scopes: [{ resource: 'acme/web', permissions: ['repo:read', 'repo:write'] }] });
  return { auth, tokens: { reader: reader.token, writer: writer.token } };
}
