/**
 * The `tools` option of the `/mcp` handlers: a `tools/call` for a tool this
 * credential can never use is answered before the MCP server sees it. The
 * server registers only the tools `canUseTool` allows, so without this the SDK
 * would answer "Tool thing_put not found", which tells the person nothing about
 * why; with it the answer is a tool error naming the permission the
 * credential lacks, as every other refusal is. When what refuses is an OAuth
 * token's granted scope alone (the role would allow it), the answer is the
 * HTTP 403 scope challenge instead (challenge.ts): a new consent can lift it.
 *
 * This is the one place a scope refusal can still become an HTTP status (H3): once
 * the MCP server runs the tool, the SDK's transport owns the response (the
 * node transport writes its status itself, and one HTTP answer may carry the
 * results of several messages), so a refusal found inside a tool stays a
 * tool error.
 * @module
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { canEverHold, type Principal } from '../core/policy';
import { isPermission, type Permission } from '../core/vocabulary';
import type { IssueInput } from '../errors';
import { toolError } from './tools';
import { scopeShortfall } from './challenge';

/** At most this many tools in the option: it is a table of a server's tools, not data. */
const MAX_TOOLS = 1000;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** @internal one checked entry of the `tools` option: the permission, and the resource of the call when the entry can say it. */
export interface ToolEntry {
  readonly permission: Permission;
  readonly resource?: (args: never) => unknown;
}

/** @internal the checked `tools` option: tool name to what it needs. */
export type ToolPermissions = ReadonlyMap<string, ToolEntry>;

/** @internal check the `tools` option once, when the handlers are built; problems go to `issues`. */
export function checkToolPermissions(value: unknown, path: string, issues: IssueInput[]): ToolPermissions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path, message: "expected an object of tool names to { permission }, e.g. { thing_put: { permission: 'repo:write' } }" });
    return undefined;
  }
  const out = new Map<string, ToolEntry>();
  const names = Object.keys(value);
  if (names.length > MAX_TOOLS) issues.push({ code: 'too_big', path, message: `has more than ${MAX_TOOLS} tools` });
  for (const name of names.slice(0, MAX_TOOLS)) {
    const policy: unknown = (value as Record<string, unknown>)[name];
    if (!TOOL_NAME.test(name))
      issues.push({ path: `${path}.${name.slice(0, 64)}`, message: 'is not a tool name ([A-Za-z0-9_.-], 1 to 128)' });
    const permission = typeof policy === 'object' && policy !== null ? (policy as { permission?: unknown }).permission : undefined;
    const resource = typeof policy === 'object' && policy !== null ? (policy as { resource?: unknown }).resource : undefined;
    if (resource !== undefined && typeof resource !== 'function')
      issues.push({ path: `${path}.${name.slice(0, 64)}.resource`, message: 'must be a function of the tool arguments' });
    if (!isPermission(permission)) issues.push({ path: `${path}.${name.slice(0, 64)}.permission`, message: 'must be a svc permission' });
    else out.set(name, typeof resource === 'function' ? { permission, resource: resource as (args: never) => unknown } : { permission });
  }
  return out;
}

/**
 * @internal what the pre-check decided about one request: nothing (the MCP
 * server answers), a tool error (the credential can never use the tool), or
 * the scope challenge (its OAuth scope alone refuses; `scope` is what to ask for).
 */
export type Precheck =
  | { kind: 'tool'; message: JSONRPCMessage }
  | { kind: 'scope'; scope: string; permission: Permission; tool: string; resource: string | undefined }
  | undefined;

/** The resource a tool call names, from its raw arguments (the schema checks them later); `undefined` when it cannot be told. */
function resourceOf(entry: ToolEntry, params: object): unknown {
  if (entry.resource === undefined) return undefined;
  try {
    const args = (params as { arguments?: unknown }).arguments;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
    const r: unknown = (entry.resource as (a: unknown) => unknown)(args);
    return typeof r === 'string' && r.length <= 256 ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What to answer to `body` when it is one `tools/call` of a listed tool this
 * principal can never use: the scope challenge when only its OAuth scope
 * refuses, else a tool error; `undefined` (let the MCP server answer) for
 * everything else, a batch included. Never throws: a body of any shape is
 * someone else's to refuse.
 */
export function refuseUnusableTool(tools: ToolPermissions | undefined, principal: Principal, body: unknown): Precheck {
  try {
    if (tools === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const { method, params, id } = body as { method?: unknown; params?: unknown; id?: unknown };
    if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
    if (typeof params !== 'object' || params === null) return undefined;
    const name = (params as { name?: unknown }).name;
    if (typeof name !== 'string') return undefined;
    const entry = tools.get(name);
    if (entry === undefined) return undefined;
    const { permission } = entry;
    // First the grant: an OAuth token sees the tools its role allows, so a call beyond its scope comes here.
    const resource = resourceOf(entry, params);
    const shortfall = scopeShortfall(principal, permission, resource);
    const named = typeof resource === 'string' ? resource : undefined;
    if (shortfall !== undefined) return { kind: 'scope', scope: shortfall.scope, permission, tool: name, resource: named };
    if (canEverHold(principal, permission)) return undefined;
    const message = `this credential may never use ${name}: it holds ${permission} on no resource (its role or its scopes leave it out)`;
    return { kind: 'tool', message: { jsonrpc: '2.0', id, result: toolError('forbidden', message, { tool: name, permission }) } };
  } catch {
    // A hostile body (a Proxy cannot come out of JSON.parse, but a parsedBody can be anything): the server answers.
    return undefined;
  }
}
