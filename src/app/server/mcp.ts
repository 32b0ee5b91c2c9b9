/**
 * The reference server's MCP endpoint (`svc serve`): `/mcp` on the Streamable
 * HTTP transport, stateless, authenticated with a bearer token through
 * `svc-auth/mcp`, plus its Protected Resource Metadata, which lists the
 * server's authorization server when it has one (`svc serve` does: MCP
 * clients sign in there with OAuth); a PAT (or a session) in
 * `Authorization: Bearer <token>` works either way. A 401 names the scope to
 * ask for first (`repo:read`); an OAuth token sees every tool its user's role
 * allows, and a call beyond what the person approved gets a 403 scope
 * challenge, so the client asks the person for more (step-up).
 *
 * Tools (names and arguments are part of the contract; results carry the same
 * fields as the HTTP endpoints, as JSON text and as `structuredContent`):
 * - `whoami` `{}`                                    -> `{kind, user, token}` (any valid credential)
 * - `repo_head` `{org, repo}`                        -> `{org, repo, head}` (repo:read)
 * - `thing_get` `{org, repo, name}`                  -> `{name, content, commit}` (repo:read on the thing)
 * - `thing_put` `{org, repo, name, content, committer?}` -> `{commit, committer}` (repo:write on the thing; committer per T9)
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { NotFoundError, ValidationError, type Auth, type Principal } from 'svc-auth';
import { canUseTool, guardTool, mcpHandlers, mcpPrincipal, type AuthInfo, type McpToolPolicy } from 'svc-auth/mcp';
import type { LogFields, PathHandler, ThingStore } from './types';

/**
 * The MCP endpoint's path on the server.
 *
 * @example
 * ```ts
 * `${baseUrl}${MCP_PATH}`; // 'http://127.0.0.1:8080/mcp'
 * ```
 */
const MCP_PATH = '/mcp';
/**
 * Where the Protected Resource Metadata of {@link MCP_PATH} is served (RFC 9728 section 3.1).
 *
 * @example
 * ```ts
 * await fetch(`${baseUrl}${MCP_METADATA_PATH}`); // { resource: `${baseUrl}/mcp`, bearer_methods_supported: ['header'], ... }
 * ```
 */
const MCP_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

type RepoArgs = { org: string; repo: string };
type ThingArgs = RepoArgs & { name: string };

const repoOf = (a: RepoArgs): string => `${a.org}/${a.repo}`;
const READ_REPO: McpToolPolicy<RepoArgs> = { permission: 'repo:read', resource: repoOf };
const READ_THING: McpToolPolicy<ThingArgs> = { permission: 'repo:read', resource: repoOf, thing: (a) => a.name };
const WRITE_THING: McpToolPolicy<ThingArgs> = { permission: 'repo:write', resource: repoOf, thing: (a) => a.name };

const repoShape = { org: z.string().describe('organization name'), repo: z.string().describe('repository name') };
const thingShape = { ...repoShape, name: z.string().describe('thing name, <Type>/<name>, e.g. Doc/readme') };

/** A tool result with the same object as JSON text (for models) and as structured content (for programs). */
function result(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * The MCP server for one authenticated credential: only the tools it can ever
 * use are registered, so `tools/list` of a read-only PAT has no `thing_put`
 * (an OAuth token has it when its user's role allows it: see `canUseTool`).
 *
 * @example
 * ```ts
 * const server = mcpServerFor(principal, { auth, things, version: '1.0.0' });
 * await server.connect(transport);
 * ```
 */
export function mcpServerFor(principal: Principal, { auth, things, version }: McpParts): McpServer {
  const server = new McpServer({ name: 'svc', version });

  server.registerTool(
    'whoami',
    {
      description: 'Who the credential of this connection belongs to.',
      inputSchema: {},
      outputSchema: { kind: z.enum(['session', 'pat', 'component']), user: z.string(), token: z.string().nullable() },
      annotations: { readOnlyHint: true },
    },
    (_args, extra) => {
      const p = mcpPrincipal(extra.authInfo);
      return result({ kind: p.kind, user: p.userId, token: p.tokenName ?? null });
    },
  );

  if (canUseTool(principal, READ_REPO)) {
    server.registerTool(
      'repo_head',
      {
        description: 'The head commit of a repository. Needs repo:read.',
        inputSchema: repoShape,
        outputSchema: { org: z.string(), repo: z.string(), head: z.string() },
        annotations: { readOnlyHint: true },
      },
      guardTool(auth, READ_REPO, async (a: RepoArgs) => {
        const key = repoOf(a).toLowerCase();
        return result({ org: a.org.toLowerCase(), repo: a.repo.toLowerCase(), head: await things.head(key) });
      }),
    );
    server.registerTool(
      'thing_get',
      {
        description: 'Read a thing of a repository. Needs repo:read on that thing.',
        inputSchema: thingShape,
        outputSchema: { name: z.string(), content: z.unknown(), commit: z.string() },
        annotations: { readOnlyHint: true },
      },
      guardTool(auth, READ_THING, async (a: ThingArgs) => {
        const key = repoOf(a).toLowerCase();
        const thing = await things.get(key, a.name);
        if (thing === undefined) throw new NotFoundError(`no thing ${a.name} in ${key}`);
        return result({ name: thing.name, content: thing.content, commit: thing.commit });
      }),
    );
  }

  if (canUseTool(principal, WRITE_THING)) {
    server.registerTool(
      'thing_put',
      {
        description:
          'Write a thing of a repository; the commit is attributed to the token committer identity unless `committer` overrides it. Needs repo:write on that thing.',
        inputSchema: {
          ...thingShape,
          content: z.unknown().describe('the new content, any JSON value'),
          committer: z.string().optional().describe('identity wref svc:<namespace>/users/Identity/<id>'),
        },
        outputSchema: { commit: z.string(), committer: z.string() },
        annotations: { readOnlyHint: false, destructiveHint: false },
      },
      guardTool(auth, WRITE_THING, async (a: ThingArgs & { content?: unknown; committer?: string | undefined }, _extra, p) => {
        if (a.content === undefined) throw new ValidationError([{ path: 'content', message: 'is required' }]);
        const committer = auth.committer(p, a.committer);
        const thing = await things.put(repoOf(a).toLowerCase(), a.name, a.content, committer);
        return result({ commit: thing.commit, committer: thing.committer });
      }),
    );
  }
  return server;
}

/** What the MCP endpoint works on: the server's own `Auth` and things, and the version it tells clients. */
interface McpParts {
  auth: Auth;
  things: ThingStore;
  version: string;
}

/** Who the MCP endpoint served, for the access log: the credential it accepted, if any. */
function served(req: IncomingMessage): LogFields {
  try {
    // The handler leaves the request's AuthInfo on `req.auth` once the credential is accepted.
    const p = mcpPrincipal((req as { auth?: AuthInfo }).auth);
    return { user: p.userId, token: p.tokenName ?? p.kind, reason: 'mcp' };
  } catch {
    return { reason: 'mcp' };
  }
}

/**
 * The server's MCP handlers by exact path: `/mcp` and its metadata.
 * `allowedOrigins` are the browser origins allowed besides the server's own
 * (`svc serve --allow-origin`); any other `Origin` gets 403 (DNS rebinding).
 *
 * @throws ValidationError when an allowed origin is not an http(s) origin.
 * @example
 * ```ts
 * const exact = { ...mcpRoutes({ auth, things }) }; // { '/mcp': …, '/.well-known/oauth-protected-resource/mcp': … }
 * ```
 */
export function mcpRoutes(options: {
  auth: Auth;
  /** The `Auth` of `/mcp` when it is not `auth` (its trusted issuers name `/mcp` as their audience). */
  mcpAuth?: Auth | undefined;
  things: ThingStore;
  version?: string | undefined;
  allowedOrigins?: readonly string[] | undefined;
  /** The issuer of the server's authorization server, listed in the metadata (MCP clients sign in there). */
  authorizationServer?: string | undefined;
}): Record<string, PathHandler> {
  const auth = options.mcpAuth ?? options.auth;
  const parts: McpParts = { auth, things: options.things, version: options.version ?? '0.0.0' };
  const handlers = mcpHandlers({
    auth,
    resourceName: 'svc dev instance',
    server: (principal) => mcpServerFor(principal, parts),
    // A call of a tool the credential cannot see is answered with the permission it lacks; an OAuth
    // token whose approved scope alone leaves it out gets the 403 scope challenge (every tool that
    // needs a permission is listed, so no scope refusal is left for inside a tool). The 401's
    // `scope` is the read permission (repo:read): a person approves a write when one is made. The
    // metadata's `scopes_supported` lists all these tools need: repo:read repo:write.
    tools: { repo_head: READ_REPO, thing_get: READ_THING, thing_put: WRITE_THING },
    ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
    ...(options.authorizationServer === undefined ? {} : { authorizationServers: [options.authorizationServer] }),
  });
  return {
    [MCP_PATH]: async (req, res) => {
      await handlers.mcp.node(req, res);
      return served(req);
    },
    [MCP_METADATA_PATH]: (req, res) => {
      handlers.metadata.node(req, res);
      return Promise.resolve({ reason: 'mcp' });
    },
  };
}
