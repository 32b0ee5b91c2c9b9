/**
 * The `tools` option of the `/mcp` handlers: a `tools/call` for a tool this
 * credential can never use is answered before the MCP server sees it. The
 * server registers only the tools `canUseTool` allows, so without this the SDK
 * would answer "Tool thing_put not found", which tells the person nothing about
 * why; with it the answer is a tool error naming the permission the
 * credential lacks, as every other refusal is.
 * @module
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../core/policy';
import { isPermission, type Permission } from '../core/vocabulary';
import type { IssueInput } from '../errors';
import { canUseTool, toolError } from './tools';

/** At most this many tools in the option: it is a table of a server's tools, not data. */
const MAX_TOOLS = 1000;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** @internal the checked `tools` option: tool name to the permission it needs. */
export type ToolPermissions = ReadonlyMap<string, Permission>;

/** @internal check the `tools` option once, when the handlers are built; problems go to `issues`. */
export function checkToolPermissions(value: unknown, path: string, issues: IssueInput[]): ToolPermissions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path, message: "expected an object of tool names to { permission }, e.g. { thing_put: { permission: 'repo:write' } }" });
    return undefined;
  }
  const out = new Map<string, Permission>();
  const names = Object.keys(value);
  if (names.length > MAX_TOOLS) issues.push({ code: 'too_big', path, message: `has more than ${MAX_TOOLS} tools` });
  for (const name of names.slice(0, MAX_TOOLS)) {
    const policy: unknown = (value as Record<string, unknown>)[name];
    if (!TOOL_NAME.test(name))
      issues.push({ path: `${path}.${name.slice(0, 64)}`, message: 'is not a tool name ([A-Za-z0-9_.-], 1 to 128)' });
    const permission = typeof policy === 'object' && policy !== null ? (policy as { permission?: unknown }).permission : undefined;
    if (!isPermission(permission)) issues.push({ path: `${path}.${name.slice(0, 64)}.permission`, message: 'must be a svc permission' });
    else out.set(name, permission);
  }
  return out;
}

/**
 * The JSON-RPC answer to `body` when it is one `tools/call` of a listed tool
 * this principal can never use; `undefined` (let the MCP server answer) for
 * everything else. Never throws: a body of any shape is someone else's to refuse.
 */
export function refuseUnusableTool(tools: ToolPermissions | undefined, principal: Principal, body: unknown): JSONRPCMessage | undefined {
  if (tools === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, params, id } = body as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  const name = typeof params === 'object' && params !== null ? (params as { name?: unknown }).name : undefined;
  if (typeof name !== 'string') return undefined;
  const permission = tools.get(name);
  if (permission === undefined || canUseTool(principal, { permission })) return undefined;
  const message = `this credential may never use ${name}: it holds ${permission} on no resource (its role or its scopes leave it out)`;
  return { jsonrpc: '2.0', id, result: toolError('forbidden', message, { tool: name, permission }) };
}
