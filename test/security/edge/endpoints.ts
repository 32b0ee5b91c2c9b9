/**
 * The table of every endpoint the library returns that reads a request body (`/mcp`, credential
 * revocation, GitHub secret scanning, the OAuth server's registration and token endpoints), each
 * built with an `onError` (for OAuth: its `log`) the test chooses, and how each is mounted: as it
 * is on node:http, as it is in Express 5 (`app.post(path, endpoint.node)`), and as a fetch
 * handler. The OAuth server runs on node's request and response (oidc-provider): no fetch form.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { credentialRevocationHandler, githubSecretScanningHandler } from '../../../src/leaks';
import { mcpHandlers } from '../../../src/mcp';
import { createAuthorizationServer, MemoryOAuthStorage } from '../../../src/oauth';
import type { Auth } from '../../../src/service';

export type OnError = (err: unknown) => unknown;
export type Mount = 'node' | 'express' | 'fetch';

export interface Built {
  node(req: IncomingMessage, res: ServerResponse, next?: unknown): Promise<void>;
  fetch?(req: Request): Promise<Response>;
}

export interface Endpoint {
  name: string;
  path: string;
  mounts: readonly Mount[];
  /** The headers of a well-formed request (its content type included). */
  headers(): Record<string, string>;
  /** A well-formed body. */
  body: string;
  /** The body cap: one byte more is refused. */
  max: number;
  /** What a well-formed body gets, and what a malformed one (not JSON; not its content type) gets. */
  status: { ok: number; invalid: number; wrongType: number };
  /** The parser an application puts before it in Express, which leaves its work on `req.body`. */
  parser(): RequestHandler;
  /** The body of the 500 (a failure the client learns nothing of). */
  internal: unknown;
  /** Is this 413 body the endpoint's refusal of a body over the cap? */
  tooLarge(body: unknown): boolean;
  make(auth: Auth, onError: OnError): Promise<Built>;
}

const json = { 'content-type': 'application/json' };
const MAX = 1024;
const H2_INTERNAL = { error: 'internal', message: 'internal error' };
const h2TooLarge = (b: unknown): boolean =>
  (b as { error?: string; issues?: { code: string }[] }).error === 'validation' &&
  (b as { issues: { code: string }[] }).issues[0]?.code === 'too_big';
const all: readonly Mount[] = ['node', 'express', 'fetch'];
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

/** What every row of the OAuth server shares: node only, its cap, its answers, a server whose `log` is the `onError`. */
const oauth = {
  mounts: ['node', 'express'] as const,
  max: 56 * 1024,
  internal: { error: 'server_error', error_description: 'the server could not complete the request' },
  tooLarge: (b: unknown): boolean => (b as { error?: string }).error === 'invalid_request',
  make: async (auth: Auth, onError: OnError): Promise<Built> => {
    const server = await createAuthorizationServer({
      auth,
      issuer: 'http://127.0.0.1:9',
      signIn: { users: () => ['alice'] },
      storage: new MemoryOAuthStorage(),
      clients: { registrationsPerHour: 1000 },
      log: onError,
    });
    return { node: server.node };
  },
};

/** The endpoints; `session` is a credential `/mcp` accepts. */
export function endpoints(session: () => string): Endpoint[] {
  const server = (): McpServer => new McpServer({ name: 't', version: '1' });
  const list: Endpoint[] = [
    {
      name: '/mcp',
      path: '/mcp',
      mounts: all,
      headers: () => ({ ...json, authorization: `Bearer ${session()}`, accept: 'application/json, text/event-stream' }),
      body: initialize,
      max: MAX,
      status: { ok: 200, invalid: 400, wrongType: 415 },
      parser: () => express.json(),
      internal: H2_INTERNAL,
      tooLarge: h2TooLarge,
      make: (auth, onError) => Promise.resolve(mcpHandlers({ auth, server, maxBodyBytes: MAX, onError }).mcp),
    },
    {
      name: 'credential revocation',
      path: '/api/credentials/revoke',
      mounts: all,
      headers: () => json,
      body: JSON.stringify({ credentials: ['not-a-token'] }),
      max: MAX,
      status: { ok: 202, invalid: 400, wrongType: 415 },
      parser: () => express.json(),
      internal: H2_INTERNAL,
      tooLarge: h2TooLarge,
      make: (auth, onError) => Promise.resolve(credentialRevocationHandler(auth, { maxBodyBytes: MAX, rateLimit: false, onError })),
    },
    {
      name: 'GitHub secret scanning',
      path: '/hooks/github',
      mounts: all,
      // Signed with a key GitHub does not list (its keys URL does not answer): a well-formed body is a 503, never an accept.
      headers: () => ({ ...json, 'github-public-key-identifier': 'k1', 'github-public-key-signature': 'AAAAAAAAAAAA' }),
      body: '[]',
      max: MAX,
      status: { ok: 503, invalid: 503, wrongType: 503 },
      parser: () => express.raw({ type: () => true }),
      internal: H2_INTERNAL,
      tooLarge: h2TooLarge,
      make: (auth, onError) =>
        Promise.resolve(
          githubSecretScanningHandler(auth, {
            tokenTypes: ['svc_auth_pat'],
            keysUrl: 'http://127.0.0.1:9/keys',
            maxBodyBytes: MAX,
            onError,
          }),
        ),
    },
    {
      ...oauth,
      name: 'OAuth registration',
      path: '/oauth/register',
      headers: () => json,
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], client_name: 't' }),
      status: { ok: 201, invalid: 400, wrongType: 400 },
      parser: () => express.json(),
    },
    {
      ...oauth,
      name: 'OAuth token (a form)',
      path: '/oauth/token',
      headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }),
      // A client nobody registered: a well-formed form is refused by oidc-provider, after the edge read it.
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: 'nobody' }).toString(),
      status: { ok: 401, invalid: 400, wrongType: 400 },
      parser: () => express.urlencoded(),
    },
  ];
  return list;
}

const servers: Server[] = [];

/** Close every server `listen` started. */
export function closeAll(): void {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
}

/** `handler` on a loopback server; its base URL. */
export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const srv = createServer(handler);
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

/** `built` mounted `how` (with `before` ahead of it in Express, or around it on node:http); its base URL. */
export function mount(built: Built, how: Exclude<Mount, 'fetch'>, path: string, before?: RequestHandler): Promise<string> {
  if (how === 'express') {
    const app = express();
    if (before !== undefined) app.post(path, before, built.node as RequestHandler);
    else app.post(path, built.node as RequestHandler);
    return listen(app);
  }
  return listen((req, res) => {
    if (before === undefined) void built.node(req, res);
    else void before(req as never, res as never, () => void built.node(req, res));
  });
}
