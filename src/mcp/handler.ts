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
import type { Principal } from '../core/policy';
import type { AuthInfo } from './auth-info';
import { answerResponse, closing, writeAnswer as write } from '../http';
import { core } from './handler-core';
import type { McpHandlerOptions } from './handler-options';
import { originOfHost } from './origin';
import { readFetchBody, readNodeBody } from './body';

export type { McpHandlerOptions, McpServerLike } from './handler-options';

/**
 * One endpoint in the library's one shape: `node` is a node:http, Express or Connect handler as it
 * is (`app.all('/mcp', h.mcp.node)`: a body a parser already read is taken from `req.body`; the
 * third argument, Express's `next`, is never read), `fetch` a `(Request) => Response` handler
 * (Hono, Bun, Deno, workers). Neither throws nor rejects.
 *
 * @example
 * ```ts
 * const endpoint: McpEndpoint = mcpHandlers({ auth, server: buildMcpServer }).mcp;
 * await endpoint.node(req, res);
 * const answer: Response = await endpoint.fetch(request);
 * ```
 */
export interface McpEndpoint {
  /** Answer a node request. Never rejects. */
  node(req: IncomingMessage, res: ServerResponse, next?: unknown): Promise<void>;
  /** Answer a fetch `Request`. Never rejects. */
  fetch(req: Request): Promise<Response>;
}

/**
 * The two endpoints of an MCP server: mount `mcp` at the endpoint and `metadata` at its well-known URL.
 *
 * @example
 * ```ts
 * const h: McpHandlers = mcpHandlers({ auth, server: buildMcpServer });
 * // Express: app.all('/mcp', h.mcp.node); app.get('/.well-known/oauth-protected-resource/mcp', h.metadata.node)
 * // Hono, Bun, Deno, workers: h.mcp.fetch(req), h.metadata.fetch(req)
 * ```
 */
export interface McpHandlers {
  /** `/mcp`: authenticate, then serve one MCP request. */
  readonly mcp: McpEndpoint;
  /**
   * `/.well-known/oauth-protected-resource/<path>`: the RFC 9728 document. Needs no credential and
   * reads no body, so both forms answer at once (`void`, a `Response`).
   */
  readonly metadata: {
    node(req: IncomingMessage, res: ServerResponse, next?: unknown): void;
    fetch(req: Request): Response;
  };
}

function pathOf(url: string | undefined): string {
  const raw = typeof url === 'string' ? url : '/';
  const q = raw.search(/[?#]/);
  return q < 0 ? raw : raw.slice(0, q);
}

/** The origin a node request was sent to (its `Host`), `undefined` when that header could not be one. */
function nodeOrigin(req: IncomingMessage): string | undefined {
  const tls = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  return originOfHost(req.headers.host, tls);
}

function originalUrl(req: IncomingMessage): string | undefined {
  // Express strips a mount path from req.url and keeps the full one here.
  const o = (req as { originalUrl?: unknown }).originalUrl;
  return typeof o === 'string' ? o : req.url;
}

/**
 * The two endpoints of an MCP server authenticated with svc-auth, each in the
 * library's one shape `{ node, fetch }` ({@link McpEndpoint}). `mcp`
 * authenticates the bearer token, builds the MCP server for this credential
 * with `options.server`, and serves the request with the SDK's Streamable
 * HTTP transport in stateless mode (JSON responses; node's
 * `StreamableHTTPServerTransport`, or `WebStandardStreamableHTTPServerTransport`
 * for fetch); GET and DELETE answer 405. A refused credential is a 401
 * with `WWW-Authenticate: Bearer realm="svc", error="invalid_token",
 * error_description="...", resource_metadata="<metadata URL>", scope="..."`
 * (no error attribute when the header is missing; `scope` is the `scopes`
 * option, by default the permissions `tools` names, and absent when that is
 * empty). With `tools`, a call of a tool that an OAuth token's granted scope
 * alone leaves out is a 403 with `Bearer realm="svc",
 * error="insufficient_scope", scope="<granted plus needed>",
 * resource_metadata="..."` (the MCP scope challenge); a PAT, or a refusal by
 * the user's role, stays a tool error. Before the credential is read, a
 * `Host` no URL can hold is a 400 and a browser `Origin` that is neither the
 * endpoint's own nor in `allowedOrigins` a 403 (DNS rebinding). Once the
 * credential is accepted, a body over `maxBodyBytes` (default 1 MiB) is a 413,
 * before it is read whole. `metadata` answers the RFC 9728 document. No
 * handler throws or rejects.
 *
 * @throws ValidationError when the options are not usable (checked here, once).
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { mcpHandlers } from 'svc-auth/mcp';
 * const h = mcpHandlers({ auth, server: (principal) => buildMcpServer(principal) });
 * createServer((req, res) => {
 *   const path = (req.url ?? '/').split('?')[0];
 *   if (path === '/mcp') void h.mcp.node(req, res);
 *   else if (path === '/.well-known/oauth-protected-resource/mcp') h.metadata.node(req, res);
 *   else res.writeHead(404).end();
 * }).listen(8080, '127.0.0.1');
 * // Express: app.all('/mcp', h.mcp.node). Hono: app.all('/mcp', (c) => h.mcp.fetch(c.req.raw)).
 * ```
 */
export function mcpHandlers(options: McpHandlerOptions): McpHandlers {
  const c = core(options);
  const node = nodeForms(c);
  const web = fetchForms(c);
  return Object.freeze({
    mcp: Object.freeze({ node: node.mcp, fetch: web.mcp }),
    metadata: Object.freeze({ node: node.metadata, fetch: web.metadata }),
  });
}

type Core = ReturnType<typeof core>;

/** The node forms of the two endpoints. */
function nodeForms(c: Core) {
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let resource: string | undefined;
    try {
      const admitted = c.admit(nodeOrigin(req), pathOf(originalUrl(req)), req.headers.origin);
      if (admitted.refusal !== undefined) return write(res, admitted.refusal);
      resource = admitted.resource;
      const { principal, info, nonce } = await c.authenticate(req, resource);
      // Every answer from here on, the SDK's and ours, carries the nonce of the next proof.
      if (nonce !== undefined) res.setHeader('dpop-nonce', nonce);
      // Where the SDK's node transport (and Express code after requireBearerAuth) looks for it.
      (req as IncomingMessage & { auth?: AuthInfo }).auth = info;
      if (req.method !== 'POST') return write(res, c.methodNotAllowed());
      // A body a framework parsed is taken from req.body; one it read and kept is a 500 (a misconfiguration).
      const read = await readNodeBody(req, c.maxBodyBytes);
      // Unread bytes may follow: close the connection once the 413 is sent.
      if (read.tooLarge) return write(res, closing(c.tooLarge()));
      const body = read.parsed;
      const refused = c.precheck(principal, body, resource);
      if (refused !== undefined) return write(res, refused);
      const server = await c.build(principal, info);
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      res.on('close', () => {
        void transport.close().catch(() => undefined);
        void server.close().catch(() => undefined);
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      write(res, c.failure(err, resource));
    }
  }
  return Object.freeze({
    mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
      // The one promise a caller holds (often with `void`): whatever escapes is a 500, never a rejection.
      return serve(req, res).catch((err: unknown) => write(res, c.internal(err)));
    },
    metadata(req: IncomingMessage, res: ServerResponse): void {
      try {
        write(res, c.metadataAnswer(nodeOrigin(req), pathOf(originalUrl(req))));
      } catch (err) {
        write(res, c.internal(err));
      }
    },
  });
}

/** The fetch forms of the two endpoints. */
function fetchForms(c: Core) {
  const respond = answerResponse;
  /** The request's origin and path; a runtime always gives an absolute URL, anything else is a bad host. */
  const target = (req: Request): { origin: string | undefined; path: string } => {
    try {
      const url = new URL(req.url);
      return { origin: url.origin, path: url.pathname };
    } catch {
      return { origin: undefined, path: '/' };
    }
  };
  async function serve(req: Request): Promise<Response> {
    let resource: string | undefined;
    try {
      const { origin, path } = target(req);
      const admitted = c.admit(origin, path, req.headers.get('origin'));
      if (admitted.refusal !== undefined) return respond(admitted.refusal);
      resource = admitted.resource;
      const { principal, info, nonce } = await c.authenticate(req, resource);
      const answer = await answerTo(req, principal, info, resource);
      // Every answer from here on, the SDK's and ours, carries the nonce of the next proof.
      return nonce === undefined ? answer : withHeader(answer, 'dpop-nonce', nonce);
    } catch (err) {
      return respond(c.failure(err, resource));
    }
  }
  /** The answer to an authenticated request; throws what `c.failure` answers. */
  async function answerTo(req: Request, principal: Principal, info: AuthInfo, resource: string): Promise<Response> {
    if (req.method !== 'POST') return respond(c.methodNotAllowed());
    const read = await readFetchBody(req, c.maxBodyBytes);
    if (read.tooLarge) return respond(c.tooLarge());
    const refused = c.precheck(principal, read.parsed, resource);
    if (refused !== undefined) return respond(refused);
    const server = await c.build(principal, info);
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    try {
      await server.connect(transport);
      // JSON mode: the Response holds the whole answer once it resolves, so both can close.
      return await transport.handleRequest(req, { authInfo: info, parsedBody: read.parsed });
    } finally {
      await transport.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    }
  }
  return Object.freeze({
    mcp(req: Request): Promise<Response> {
      // Behind @hono/node-server a rejection is a 500 with the stack on stderr: nothing may escape.
      return serve(req).catch((err: unknown) => respond(c.internal(err)));
    },
    metadata(req: Request): Response {
      try {
        const { origin, path } = target(req);
        return respond(c.metadataAnswer(origin, path));
      } catch (err) {
        return respond(c.internal(err));
      }
    },
  });
}

/** `response` with one more header: set in place, or on a copy when its headers are immutable. */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}
