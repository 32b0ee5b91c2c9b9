/**
 * `svc-auth/mcp`, part 4: the `/mcp` endpoint (Streamable HTTP, stateless)
 * and its Protected Resource Metadata, for node:http and for fetch `Request`
 * handlers. Every request is authenticated afresh (a token revoked a moment
 * ago fails on its next request, T5), then served by an MCP server built for
 * that credential, so `tools/list` shows only what the credential can use.
 * Without sessions nothing outlives the request, so no credential can ever
 * use another's MCP session.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AuthenticationError, ValidationError } from '../errors';
import { httpError, type HttpErrorBody } from '../http/errors';
import type { Principal } from '../policy/subject';
import { bearerFromRequest } from '../service/bearer';
import type { Auth } from '../service/types';
import { authInfoFor, checkAuth, checkRenewHint, checkUrl, refusalText, type AuthInfo } from './auth-info';
import { protectedResourceMetadata, resourceMetadataUrl, resourceOfMetadataPath, type ProtectedResourceMetadata } from './metadata';

/**
 * What the handlers need of an MCP server: the SDK's `McpServer` (or low-level `Server`) fits.
 *
 * @example
 * ```ts
 * const server: McpServerLike = new McpServer({ name: 'my-service', version: '1.0.0' });
 * ```
 */
export interface McpServerLike {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/**
 * Options of {@link mcpNodeHandlers} and {@link mcpFetchHandlers}.
 *
 * @example
 * ```ts
 * const options: McpHandlerOptions = {
 *   auth,
 *   server: (principal) => buildServer(principal), // a new McpServer with the tools this credential can use
 *   resource: 'https://svc.example/mcp',
 * };
 * ```
 */
export interface McpHandlerOptions {
  auth: Auth;
  /** Build the MCP server for one authenticated request (register only the tools `canUseTool` allows). */
  server: (principal: Principal, authInfo: AuthInfo) => McpServerLike | Promise<McpServerLike>;
  /**
   * The endpoint's public URL (`https://svc.example/mcp`). Default: taken from
   * the request (`Host` header, `http:` unless the socket is TLS): fine for a
   * dev instance, set it behind a proxy.
   */
  resource?: string | URL;
  /** OAuth authorization servers for the metadata. Omit on an instance without OAuth. */
  authorizationServers?: readonly (string | URL)[];
  /** A name for the metadata document. */
  resourceName?: string;
  /** The next step a person should take about a refused token (see `mcpTokenVerifier`). */
  renewHint?: string;
  /** Called with the original error whenever the answer is a 5xx, to log what the client is never shown. */
  onError?: (err: unknown) => void;
}

/**
 * The two node:http handlers: mount `mcp` at the endpoint and `metadata` at its well-known URL.
 *
 * @example
 * ```ts
 * const h: McpNodeHandlers = mcpNodeHandlers({ auth, server: buildServer });
 * app.all('/mcp', (req, res) => h.mcp(req, res, req.body));
 * app.get('/.well-known/oauth-protected-resource/mcp', h.metadata);
 * ```
 */
export interface McpNodeHandlers {
  /** `/mcp`: authenticate, then serve one MCP request. `parsedBody` when a body parser already read it. Never rejects. */
  mcp(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** `/.well-known/oauth-protected-resource/<path>`: the RFC 9728 document. Needs no credential. */
  metadata(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * The two fetch handlers, for runtimes with web-standard `Request`/`Response` (Hono, Bun, Deno, workers).
 *
 * @example
 * ```ts
 * const h: McpFetchHandlers = mcpFetchHandlers({ auth, server: buildServer });
 * export default { fetch: (req: Request) => (new URL(req.url).pathname === '/mcp' ? h.mcp(req) : h.metadata(req)) };
 * ```
 */
export interface McpFetchHandlers {
  /** `/mcp`: authenticate, then serve one MCP request. Never rejects. */
  mcp(req: Request): Promise<Response>;
  /** `/.well-known/oauth-protected-resource/<path>`: the RFC 9728 document. */
  metadata(req: Request): Response;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const OPTION_KEYS = new Set(['auth', 'server', 'resource', 'authorizationServers', 'resourceName', 'renewHint', 'onError']);
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** What both handler kinds share: option checks, authentication, error answers. */
function core(options: McpHandlerOptions) {
  if (typeof options !== 'object' || options === null) throw new ValidationError([{ path: 'options', message: 'expected { auth, server, ... }' }]);
  const unknown = Object.keys(options).filter((k) => !OPTION_KEYS.has(k));
  if (unknown.length > 0) throw new ValidationError(unknown.map((k) => ({ path: `options.${k.slice(0, 40)}`, message: 'unknown option' })));
  const auth = checkAuth(options.auth);
  if (typeof options.server !== 'function') throw new ValidationError([{ path: 'options.server', message: 'must be a function (principal, authInfo) => McpServer' }]);
  if (options.onError !== undefined && typeof options.onError !== 'function') throw new ValidationError([{ path: 'options.onError', message: 'must be a function' }]);
  const fixed = options.resource === undefined ? undefined : checkUrl(options.resource, 'options.resource');
  const hint = checkRenewHint(options.renewHint, 'options.renewHint');
  const meta = (resource: string): ProtectedResourceMetadata =>
    protectedResourceMetadata({
      resource,
      ...(options.authorizationServers === undefined ? {} : { authorizationServers: options.authorizationServers }),
      ...(options.resourceName === undefined ? {} : { resourceName: options.resourceName }),
    });
  // Fail now, not on the first request, when the metadata options are wrong.
  meta(fixed ?? 'http://localhost/mcp');

  async function authenticate(req: IncomingMessage | Request, resource: string): Promise<{ principal: Principal; info: AuthInfo }> {
    const token = bearerFromRequest(req);
    const principal = await auth.authenticate(token);
    return { principal, info: authInfoFor(principal, token, resource) };
  }

  /** H2, plus `resource_metadata` on a 401 so that MCP clients find the metadata (RFC 9728 section 5.1). */
  function failure(err: unknown, resource: string | undefined): Answer {
    const answer = httpError(err);
    if (answer.status >= 500) options.onError?.(err);
    const headers = { ...answer.headers };
    const body: HttpErrorBody = { ...answer.body };
    if (answer.status === 401) {
      const reason = err instanceof AuthenticationError ? err.reason : 'malformed';
      const text = refusalText(reason, hint);
      const where = resource === undefined ? '' : `, resource_metadata="${resourceMetadataUrl(resource)}"`;
      // RFC 6750 section 3.1: no error code when the request carried no credential at all.
      headers['www-authenticate'] = reason === 'missing' ? `Bearer realm="svc"${where}` : `Bearer realm="svc", error="invalid_token", error_description="${text}"${where}`;
      body.message = text;
    }
    return { status: answer.status, headers, body };
  }

  function methodNotAllowed(): Answer {
    // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
    return { status: 405, headers: { ...JSON_HEADERS, allow: 'POST' }, body: { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, use POST' }, id: null } };
  }

  function metadataAnswer(resource: string | undefined): Answer {
    if (resource === undefined) return { status: 404, headers: { ...JSON_HEADERS }, body: { error: 'not_found', message: 'no protected resource here' } };
    return { status: 200, headers: { ...JSON_HEADERS, 'cache-control': 'max-age=300' }, body: meta(resource) };
  }

  return { fixed, authenticate, failure, methodNotAllowed, metadataAnswer, build: options.server, onError: options.onError };
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.search(/[?#]/);
  return q < 0 ? raw : raw.slice(0, q);
}

/** The origin a node request was sent to; `ValidationError` for a Host header that could not be one. */
function nodeOrigin(req: IncomingMessage): string {
  const host = req.headers.host;
  if (typeof host !== 'string' || !HOST.test(host)) throw new ValidationError([{ path: 'headers.host', message: 'missing or not a host name' }]);
  const tls = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  return `${tls ? 'https' : 'http'}://${host}`;
}

function originalUrl(req: IncomingMessage): string | undefined {
  // Express strips a mount path from req.url and keeps the full one here.
  const o = (req as { originalUrl?: unknown }).originalUrl;
  return typeof o === 'string' ? o : req.url;
}

function write(res: ServerResponse, a: Answer): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(a.status, a.headers).end(JSON.stringify(a.body));
}

/**
 * node:http handlers for an MCP endpoint authenticated with svc-auth (also
 * usable as Express handlers). `mcp` authenticates the bearer token, builds
 * the MCP server for this credential with `options.server`, and serves the
 * request with the SDK's `StreamableHTTPServerTransport` in stateless mode
 * (JSON responses); GET and DELETE answer 405. A refused credential is a 401
 * with `WWW-Authenticate: Bearer realm="svc", error="invalid_token",
 * error_description="...", resource_metadata="<metadata URL>"` (no error
 * attribute when the header is missing).
 *
 * @throws ValidationError when the options are not usable (checked here, once).
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { mcpNodeHandlers } from 'svc-auth/mcp';
 * const h = mcpNodeHandlers({ auth, server: (principal) => buildServer(principal) });
 * createServer((req, res) => {
 *   const path = (req.url ?? '/').split('?')[0];
 *   if (path === '/mcp') void h.mcp(req, res);
 *   else if (path === '/.well-known/oauth-protected-resource/mcp') h.metadata(req, res);
 *   else res.writeHead(404).end();
 * }).listen(8080, '127.0.0.1');
 * ```
 */
export function mcpNodeHandlers(options: McpHandlerOptions): McpNodeHandlers {
  const c = core(options);
  return Object.freeze({
    async mcp(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
      let resource: string | undefined = c.fixed;
      try {
        resource ??= `${nodeOrigin(req)}${pathOf(originalUrl(req))}`;
        const { principal, info } = await c.authenticate(req, resource);
        // Where the SDK's node transport (and Express code after requireBearerAuth) looks for it.
        (req as IncomingMessage & { auth?: AuthInfo }).auth = info;
        if (req.method !== 'POST') return write(res, c.methodNotAllowed());
        const server = await c.build(principal, info);
        const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
        res.on('close', () => {
          void transport.close().catch(() => undefined);
          void server.close().catch(() => undefined);
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, parsedBody);
      } catch (err) {
        write(res, c.failure(err, resource));
      }
    },
    metadata(req: IncomingMessage, res: ServerResponse): void {
      try {
        const resource = c.fixed ?? resourceOfMetadataPath(nodeOrigin(req), pathOf(originalUrl(req)));
        write(res, c.metadataAnswer(resource));
      } catch (err) {
        write(res, c.failure(err, undefined));
      }
    },
  });
}

/**
 * Fetch handlers (`(Request) => Response`) for an MCP endpoint authenticated
 * with svc-auth, on the SDK's `WebStandardStreamableHTTPServerTransport`
 * (stateless, JSON responses): the same behaviour as {@link mcpNodeHandlers}
 * for Hono, Bun, Deno, Cloudflare Workers or Next.js route handlers.
 *
 * @throws ValidationError when the options are not usable (checked here, once).
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { mcpFetchHandlers } from 'svc-auth/mcp';
 * const h = mcpFetchHandlers({ auth, server: (principal) => buildServer(principal) });
 * const app = new Hono();
 * app.all('/mcp', (c) => h.mcp(c.req.raw));
 * app.get('/.well-known/oauth-protected-resource/mcp', (c) => h.metadata(c.req.raw));
 * ```
 */
export function mcpFetchHandlers(options: McpHandlerOptions): McpFetchHandlers {
  const c = core(options);
  const respond = (a: Answer): Response => new Response(JSON.stringify(a.body), { status: a.status, headers: a.headers });
  return Object.freeze({
    async mcp(req: Request): Promise<Response> {
      let resource: string | undefined = c.fixed;
      try {
        if (resource === undefined) {
          const url = new URL(req.url);
          resource = `${url.origin}${url.pathname}`;
        }
        const { principal, info } = await c.authenticate(req, resource);
        if (req.method !== 'POST') return respond(c.methodNotAllowed());
        const server = await c.build(principal, info);
        const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
        try {
          await server.connect(transport);
          // JSON mode: the Response holds the whole answer once it resolves, so both can close.
          return await transport.handleRequest(req, { authInfo: info });
        } finally {
          await transport.close().catch(() => undefined);
          await server.close().catch(() => undefined);
        }
      } catch (err) {
        return respond(c.failure(err, resource));
      }
    },
    metadata(req: Request): Response {
      try {
        let resource = c.fixed;
        if (resource === undefined) {
          const url = new URL(req.url);
          resource = resourceOfMetadataPath(url.origin, url.pathname);
        }
        return respond(c.metadataAnswer(resource));
      } catch (err) {
        return respond(c.failure(err, undefined));
      }
    },
  });
}
