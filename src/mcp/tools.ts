/**
 * `svc-auth/mcp`, part 2: tool-level authorization. A tool's policy names the
 * permission it needs and reads the resource (and thing) from the tool's real,
 * validated arguments; the wrapper decides with `auth.authorize` before the
 * handler runs. `canUseTool` hides from `tools/list` what the credential can
 * never use, decided from the compiled grant (`canEverHold`), not by trial calls.
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { SvcAuthError, ValidationError } from '../errors';
import { canEverHold, type Principal } from '../core/policy';
import { reportDenied, type Auth } from '../service';
import { isPermission, type Permission } from '../core/vocabulary';
import { checkAuth, mcpPrincipal } from './auth-info';
import { roleCouldAllow, scopeShortfall } from './challenge';

/**
 * What a tool needs, read from its arguments: `permission` on `resource(args)`
 * (`"org/repo"` for repo permissions, `"org"` for org permissions) and, when
 * the tool touches one, the thing `thing(args)` (checked against `allowedMatches`).
 *
 * @example
 * ```ts
 * const putThing: McpToolPolicy<{ org: string; repo: string; name: string }> = {
 *   permission: 'repo:write',
 *   resource: (a) => `${a.org}/${a.repo}`,
 *   thing: (a) => a.name,
 * };
 * ```
 */
export interface McpToolPolicy<Args> {
  readonly permission: Permission;
  readonly resource: (args: Args) => string;
  readonly thing?: (args: Args) => string | undefined;
}

/**
 * The extra argument a tool handler receives from the SDK: only the request's
 * `AuthInfo` is read here, at `authInfo` (SDK 1.x's `extra`) or at
 * `http.authInfo` (SDK 2.x's `ctx`).
 *
 * @example
 * ```ts
 * const info = await mcpTokenVerifier(auth).verifyAccessToken(token);
 * const extra: McpToolExtra = { authInfo: info }; // 1.x; 2.x: { http: { authInfo: info } }
 * ```
 */
export interface McpToolExtra {
  authInfo?: AuthInfo;
  http?: { authInfo?: AuthInfo };
}

/** The request's AuthInfo in a tool's extra argument, in either SDK generation's place; `undefined` when neither holds one. */
function authInfoOf(extra: McpToolExtra | undefined): AuthInfo | undefined {
  try {
    return extra?.authInfo ?? extra?.http?.authInfo;
  } catch {
    // A throwing getter: no credential, so mcpPrincipal refuses.
    return undefined;
  }
}

/**
 * A tool handler behind {@link guardTool}: it also receives the allowed principal.
 *
 * @example
 * ```ts
 * import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
 * import type { GuardedToolHandler, McpToolExtra } from 'svc-auth/mcp';
 * const put: GuardedToolHandler<{ name: string }, McpToolExtra, CallToolResult> = (args, _extra, principal) => ({
 *   content: [{ type: 'text', text: `${principal.userId} wrote ${args.name}` }],
 * });
 * ```
 */
export type GuardedToolHandler<Args, Extra extends McpToolExtra, R extends CallToolResult> = (
  args: Args,
  extra: Extra,
  principal: Principal,
) => R | Promise<R>;

/** @internal check a policy once, when the tool is built. */
export function checkPolicy<Args>(policy: McpToolPolicy<Args>): McpToolPolicy<Args> {
  if (typeof policy !== 'object' || policy === null)
    throw new ValidationError([{ path: 'policy', message: 'expected { permission, resource, thing? }' }]);
  const issues = [];
  for (const k of Object.keys(policy))
    if (k !== 'permission' && k !== 'resource' && k !== 'thing') issues.push({ path: `policy.${k.slice(0, 40)}`, message: 'unknown key' });
  if (!isPermission(policy.permission)) issues.push({ path: 'policy.permission', message: 'must be one of the seven permissions' });
  if (typeof policy.resource !== 'function') issues.push({ path: 'policy.resource', message: 'must be a function of the tool arguments' });
  if (policy.thing !== undefined && typeof policy.thing !== 'function')
    issues.push({ path: 'policy.thing', message: 'must be a function of the tool arguments' });
  if (issues.length > 0) throw new ValidationError(issues);
  return Object.freeze({ ...policy });
}

/**
 * Where a tool error result carries its facts for programs: `_meta['svc-auth/error']`.
 *
 * @example
 * ```ts
 * import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
 * import { TOOL_ERROR_META } from 'svc-auth/mcp';
 * const facts = (result: CallToolResult) => result._meta?.[TOOL_ERROR_META]; // { error: 'forbidden', reason: 'thing', ... }
 * ```
 */
export const TOOL_ERROR_META = 'svc-auth/error';

/**
 * A tool error result (`isError: true`): `<code>: <message>` as text, which
 * every client shows the model, and the same facts for programs in
 * `_meta['svc-auth/error']`. It has no `structuredContent`: clients (the
 * official SDK's `callTool`, MCP Inspector) validate `structuredContent`
 * against the tool's `outputSchema` even on errors, and an error object is
 * not the tool's output, so they would throw a protocol error instead of
 * showing the refusal.
 *
 * @example
 * ```ts
 * toolError('not_found', 'no thing Doc/x in acme/web');
 * // { isError: true, content: [{ type: 'text', text: 'not_found: no thing Doc/x in acme/web' }],
 * //   _meta: { 'svc-auth/error': { error: 'not_found', message: 'no thing Doc/x in acme/web' } } }
 * ```
 */
export function toolError(code: string, message: string, details: Record<string, unknown> = {}): CallToolResult {
  // Arguments are echoed back: anything shaped like a token a caller pasted into one is not.
  const text = String(message).replace(JWT_LIKE, '[redacted]');
  const safe: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) safe[k] = typeof v === 'string' ? v.replace(JWT_LIKE, '[redacted]') : v;
  return {
    isError: true,
    content: [{ type: 'text', text: `${code}: ${text}` }],
    _meta: { [TOOL_ERROR_META]: { error: code, message: text, ...safe } },
  };
}

/** What each denial reason means, in words a model can relay to a person. */
const DENIED_BECAUSE: Readonly<Record<string, string>> = {
  role: "the user's role does not include it",
  scope: "the token's scopes do not include it",
  thing: "the token's allowedMatches do not cover this thing",
  invalid: 'the resource or thing name is not valid for this permission',
};

const JWT_LIKE = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?/g;

/**
 * Wrap a tool handler so that it runs only when the caller may: the principal
 * is read from `extra.authInfo` (SDK 1.x) or `ctx.http.authInfo` (SDK 2.x)
 * ({@link mcpPrincipal}), the resource and thing
 * from the tool's validated arguments, and `auth.authorize` decides. A deny is
 * a tool result with `isError: true` naming the permission, resource (and
 * thing) refused and why (`role`, `policy`, `scope`, `thing`, `invalid`; for
 * `policy`, the org's message with its fix), in its text
 * and in `_meta['svc-auth/error']` (see {@link toolError}). When an OAuth
 * token's granted scope alone refuses (the user's role allows it), the facts
 * also carry `scope`, the permissions to ask for in a new sign-in; the HTTP
 * 403 scope challenge itself comes from the handlers' `tools` pre-check, since
 * inside a tool the SDK's transport already owns the response. A PAT cannot
 * gain scope, so it never gets one. A svc-auth error thrown
 * by the handler (`not_found`, `validation`, ...) is a tool error with its code.
 *
 * @throws ValidationError when the policy is not usable (checked here, once).
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { z } from 'zod';
 * import { guardTool } from 'svc-auth/mcp';
 * type Repo = { org: string; repo: string };
 * const server = new McpServer({ name: 'repos', version: '1.0.0' });
 * server.registerTool(
 *   'repo_head',
 *   { inputSchema: { org: z.string(), repo: z.string() } },
 *   guardTool(auth, { permission: 'repo:read', resource: (a: Repo) => `${a.org}/${a.repo}` }, async (a: Repo) => ({
 *     content: [{ type: 'text', text: JSON.stringify({ repo: `${a.org}/${a.repo}`, head: 'abc123' }) }],
 *   })),
 * );
 * ```
 */
export function guardTool<Args, Extra extends McpToolExtra, R extends CallToolResult>(
  auth: Auth,
  policy: McpToolPolicy<Args>,
  handler: GuardedToolHandler<Args, Extra, R>,
): (args: Args, extra: Extra) => Promise<R | CallToolResult> {
  const a = checkAuth(auth);
  const pol = checkPolicy(policy);
  if (typeof handler !== 'function') throw new ValidationError([{ path: 'handler', message: 'must be a function' }]);
  return async (args, extra) => {
    try {
      const principal = mcpPrincipal(authInfoOf(extra));
      const resource = pol.resource(args);
      const thing = pol.thing?.(args);
      const d = a.authorize(principal, resource, pol.permission, thing);
      if (!d.allowed) {
        reportDenied(a, principal, String(resource), pol.permission, d.reason, typeof thing === 'string' ? thing : undefined);
        const on = thing === undefined ? String(resource) : `${String(resource)} (thing ${String(thing)})`;
        // An org's policy (G2) says in its own words which org refused, why, and the fix.
        const why = d.reason === 'policy' && typeof d.message === 'string' ? d.message : (DENIED_BECAUSE[d.reason] ?? d.reason);
        // An OAuth token whose granted scope alone refuses: say what to ask for (the HTTP 403 challenge is the pre-check's).
        const more = d.reason === 'scope' ? scopeShortfall(principal, pol.permission, resource) : undefined;
        const next = more === undefined ? '' : `; sign in again and allow ${more.scope}`;
        return toolError('forbidden', `${pol.permission} on ${on} was refused (${d.reason}): ${why}${next}`.slice(0, 2048), {
          permission: pol.permission,
          resource: String(resource).slice(0, 256),
          ...(thing === undefined ? {} : { thing: String(thing).slice(0, 1024) }),
          reason: d.reason,
          ...(more === undefined ? {} : { scope: more.scope }),
        });
      }
      return await handler(args, extra, principal);
    } catch (err) {
      if (err instanceof SvcAuthError) return toolError(err.code, err.message.slice(0, 1024));
      throw err;
    }
  };
}

/**
 * Could this credential ever use a tool with `policy`? True when some resource
 * exists on which its role cap and every scope layer allow the permission
 * (`canEverHold`); use it to register, for each credential, only the tools it
 * can use, so a read-only PAT never sees a write tool in `tools/list`. An
 * OAuth access token's granted `scope` is the one layer a new consent can
 * widen, so for such a token it is true when the user's role alone allows the
 * permission somewhere: the tool is listed, and a call beyond the grant meets
 * the handlers' 403 `insufficient_scope` challenge (their `tools` option),
 * which lets the client step up. Accepts the `Principal` or the request's
 * `AuthInfo`; anything else is `false`.
 *
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { z } from 'zod';
 * import { canUseTool, guardTool, type McpToolPolicy } from 'svc-auth/mcp';
 * type Note = { org: string; repo: string; text: string };
 * const putPolicy: McpToolPolicy<Note> = { permission: 'repo:write', resource: (a) => `${a.org}/${a.repo}` };
 * const server = new McpServer({ name: 'repos', version: '1.0.0' });
 * // One server per authenticated request: a read-only token never sees note_put in tools/list.
 * if (canUseTool(principal, putPolicy)) {
 *   server.registerTool('note_put', { inputSchema: { org: z.string(), repo: z.string(), text: z.string() } },
 *     guardTool(auth, putPolicy, (a: Note) => ({ content: [{ type: 'text', text: `saved ${a.text.length} chars` }] })));
 * }
 * ```
 */
export function canUseTool(subject: Principal | AuthInfo, policy: Pick<McpToolPolicy<never>, 'permission'>): boolean {
  try {
    const p = isAuthInfo(subject) ? mcpPrincipal(subject) : subject;
    if (canEverHold(p, policy.permission)) return true;
    // An OAuth grant can grow with a new consent: list what the role allows, and let the call meet the 403 challenge.
    return isPermission(policy.permission) && roleCouldAllow(p, policy.permission);
  } catch {
    return false;
  }
}

function isAuthInfo(value: unknown): value is AuthInfo {
  return typeof value === 'object' && value !== null && 'extra' in value && 'clientId' in value;
}
