/**
 * The reference server of `svc serve`, and the example of a whole server on
 * svc-auth: node:http, JSON routes that authenticate and authorize every
 * request through `requireAuth` (guards.ts), an access log told by its
 * `onDecision`, the limits a server facing hostile clients needs,
 * and an MCP endpoint (mcp.ts). It imports only what a user of the package
 * imports (`svc-auth`, `svc-auth/scanning`, `svc-auth/mcp`, node builtins; lint checks it; its
 * request bodies are read by the library's own body reader, input.ts), and
 * what it works on is handed in: the `Auth` object, a store of things, a log.
 *
 * Every request is authenticated afresh (records are re-read from the store),
 * so a token revoked by another process is refused on its next request.
 *
 * Routes:
 * - `GET  /api/whoami`                                  -> `{kind, user, token}` (any valid credential)
 * - `GET  /api/repos/<org>/<repo>/head`                 -> `{org, repo, head}` (repo:read)
 * - `GET  /api/repos/<org>/<repo>/things/<Type>/<name>` -> `{name, content, commit}` (repo:read on the thing)
 * - `PUT  /api/repos/<org>/<repo>/things/<Type>/<name>` with `{content, committer?}` -> `{commit, committer}` (repo:write on the thing)
 * - `POST /mcp` and `GET /.well-known/oauth-protected-resource/mcp` (mcp.ts)
 * - with an authorization server (`oauth`): its metadata, `/oauth/...` endpoints and pages
 * - `POST /api/credentials/revoke` with `{credentials: [token, ...]}`, no credential -> 202 (leaks.ts)
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  NotFoundError,
  UnavailableError,
  ValidationError,
  principalOf,
  sendError,
  sendJson,
  type Auth,
  type NodeMiddleware,
  type Principal,
} from 'svc-auth';
import type { AuthorizationServer } from 'svc-auth/oauth';
import { redactTokens } from 'svc-auth/scanning';
import { guardsFor, reasonOf, type Asked } from './guards';
import { BODY_LIMITS, readJson, segments, writeInput, type BodyLimits } from './input';
import { leakRoutes } from './leaks';
import { mcpRoutes } from './mcp';
import type { LogFields, PathHandler, ThingStore } from './types';

/**
 * Options of {@link createReferenceServer}: what the server works on.
 *
 * @example
 * ```ts
 * const options: ReferenceServerOptions = { auth, things, log: (line) => console.error(line) };
 * ```
 */
export interface ReferenceServerOptions {
  /** Authenticates and authorizes every request: the object `createAuth` returned. */
  auth: Auth;
  /** Where the things of the routes are read and written. */
  things: ThingStore;
  /** Receives one line per request: method, path, status, user, token, decision. Never a token value. Default: none. */
  log?: ((line: string) => void) | undefined;
  /** Browser origins that may call `/mcp` besides the server's own; any other `Origin` gets 403. Default none. */
  allowedOrigins?: readonly string[] | undefined;
  /** More handlers by exact path, tried before the routes above (`/mcp` and `/api/credentials/revoke` stay the server's own). */
  routes?: Readonly<Record<string, PathHandler>> | undefined;
  /** The version `/mcp` tells MCP clients. Default `'0.0.0'`. */
  version?: string | undefined;
  /**
   * The `Auth` of `/mcp`, when it is not `auth`: a token is for one resource (its `aud`), so an
   * `Auth` that trusts an authorization server trusts it for one audience. Default `auth`.
   */
  mcpAuth?: Auth | undefined;
  /**
   * An authorization server (`svc-auth/oauth`) mounted on this server: its paths are answered
   * first, and `/mcp`'s metadata lists its issuer. Default none (clients send PATs).
   */
  oauth?: AuthorizationServer | undefined;
  /**
   * A node:http server to serve on instead of creating one: this server's request listener
   * (`handle`) is added to it, and `listen` and `close` act on it; its limits are the caller's.
   * Default: a new server with the limits below.
   */
  server?: Server | undefined;
  /** How large a write's body may be and how long it may take to arrive. Default 1 MiB and 10 s. */
  body?: Partial<BodyLimits> | undefined;
}

// The limits of the server created here (hostile clients): a slow client that never finishes its
// headers or body is cut off, and headers beyond 16 KiB get 431, so one client cannot hold the
// server's memory.
const serverLimits = Object.freeze({
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  maxHeaderSize: 16 * 1024,
  connectionsCheckingInterval: 1_000,
});

/**
 * A server, built but not yet listening.
 *
 * @example
 * ```ts
 * const ref = createReferenceServer({ auth, things });
 * const url = await ref.listen({ port: 0 }); // 'http://127.0.0.1:53124'
 * await ref.close();
 * ```
 */
export interface ReferenceServer {
  readonly server: Server;
  /** The request listener of `server`, to serve the same routes from another node:http server. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Start listening (default host `127.0.0.1`, port 8080; port 0 picks a free one); resolves to the base URL. */
  listen(options?: { host?: string; port?: number }): Promise<string>;
  /** Stop accepting and drop open connections. */
  close(): Promise<void>;
}

/** One method of a route: the guard that admits it (its permission, or any valid credential), and what it does once allowed. */
interface Endpoint {
  guard: NodeMiddleware;
  run(principal: Principal, req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

/** A route's endpoints by HTTP method. */
type Route = Partial<Record<string, Endpoint>>;

/**
 * Build the reference server over `options.auth` and `options.things`.
 *
 * @throws ValidationError when an allowed origin is not an http(s) origin.
 * @example
 * ```ts
 * import { createReferenceServer } from './src/app/server'; // not a package export: the reference server of `svc serve`
 * const ref = createReferenceServer({ auth, things, log: (line) => process.stderr.write(`${line}\n`) });
 * console.log(`listening on ${await ref.listen({ port: 0 })}`);
 * ```
 */
export function createReferenceServer(options: ReferenceServerOptions): ReferenceServer {
  const { auth, things, log } = options;
  const { signedIn, reading, writing, ask: asking } = guardsFor(auth);
  const limits: BodyLimits = { ...BODY_LIMITS, ...options.body };

  /** The route of a path, by its segments (percent-decoded, none hiding a `/`); `undefined` when there is none. */
  function routeOf(path: string, ask: Asked): Route | undefined {
    const s = segments(path);
    if (s === undefined || s[0] !== 'api') return undefined;
    if (s.length === 2 && s[1] === 'whoami') {
      return {
        GET: { guard: signedIn, run: (p, _req, res) => sendJson(res, 200, { kind: p.kind, user: p.userId, token: p.tokenName ?? null }) },
      };
    }
    if (s[1] !== 'repos' || s.length < 5) return undefined;
    const [org, repo, what] = [s[2] as string, s[3] as string, s[4] as string];
    ask.resource = `${org}/${repo}`;
    const key = ask.resource.toLowerCase();
    if (what === 'head' && s.length === 5) {
      const head = async (_p: Principal, _req: IncomingMessage, res: ServerResponse): Promise<void> =>
        sendJson(res, 200, { org: org.toLowerCase(), repo: repo.toLowerCase(), head: await things.head(key) });
      return { GET: { guard: reading, run: head } };
    }
    if (what !== 'things' || s.length < 7) return undefined;
    const name = s.slice(5).join('/');
    ask.thing = name;
    return {
      GET: {
        guard: reading,
        async run(_p, _req, res) {
          const thing = await things.get(key, name);
          if (thing === undefined) throw new NotFoundError(`no thing ${name} in ${key}`);
          sendJson(res, 200, { name: thing.name, content: thing.content, commit: thing.commit });
        },
      },
      PUT: {
        guard: writing,
        async run(p, req, res) {
          const body = await readJson(req, res, limits);
          if (body === undefined) return; // answered 413
          const { content, committer } = writeInput(body);
          const thing = await things.put(key, name, content, auth.committer(p, committer));
          sendJson(res, 200, { commit: thing.commit, committer: thing.committer });
        },
      },
    };
  }

  // Exact paths first: the caller's, then the MCP and credential revocation endpoints, which no caller's route may shadow.
  const oauth = options.oauth;
  const exact: Record<string, PathHandler> = {
    ...options.routes,
    ...mcpRoutes({ ...options, authorizationServer: oauth?.issuer }),
    ...leakRoutes(options),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const seen: LogFields = {};
    const ask = asking(req, seen);
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    try {
      if (oauth?.owns(path) === true) {
        // The authorization server answers its own requests (pages, OAuth errors) and never rejects.
        seen.reason = 'oauth';
        if (!ownHost(req.headers.host, oauth.issuer)) {
          sendJson(res, 400, { error: 'invalid_request', error_description: `unknown host: use ${oauth.issuer}` });
          return;
        }
        await oauth.handle(req, res);
        return;
      }
      const own = Object.hasOwn(exact, path) ? exact[path] : undefined;
      if (own !== undefined) {
        Object.assign(seen, await own(req, res));
        return;
      }
      const route = routeOf(path, ask);
      if (route === undefined) throw new NotFoundError('no such endpoint');
      const endpoint = Object.hasOwn(route, method) ? route[method] : undefined;
      if (endpoint === undefined) {
        seen.reason = 'method';
        const methods = Object.keys(route);
        sendJson(res, 405, { error: 'method_not_allowed', message: `use ${methods.join(' or ')}` }, { allow: methods.join(', ') });
        return;
      }
      // The guard answers a refusal itself (onDecision has told the log why), and an error of `run` per H2.
      await endpoint.guard(req, res, async () => {
        try {
          await endpoint.run(principalOf(req), req, res);
        } catch (err) {
          seen.reason = reasonOf(err);
          throw err;
        }
      });
    } catch (err) {
      seen.reason = reasonOf(err);
      sendError(res, err);
    } finally {
      if (log !== undefined) {
        const write = (): void => log(logLine(method, path, res.statusCode, seen));
        // A streamed answer (MCP) may still be open: its line waits for the end.
        if (res.writableEnded) write();
        else res.once('close', write);
      }
    }
  }

  const listener = (req: IncomingMessage, res: ServerResponse): void => void handle(req, res);
  const server = options.server ?? createServer(serverLimits);
  server.on('request', listener);

  return {
    server,
    handle: listener,
    listen({ host = '127.0.0.1', port = 8080 } = {}) {
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        return Promise.reject(new ValidationError([{ path: 'port', message: 'expected an integer from 0 to 65535' }]));
      }
      return new Promise<string>((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException): void => {
          reject(new UnavailableError(`cannot listen on ${host}:${port}: ${err.code ?? 'error'}`, { cause: err }));
        };
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const addr = server.address() as AddressInfo;
          const h = addr.family === 'IPv6' || addr.address.includes(':') ? `[${addr.address}]` : addr.address;
          resolve(`http://${h}:${addr.port}`);
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The issuer's host, or on a loopback issuer another loopback name of its port: a DNS rebinding `Host` is refused. */
function ownHost(host: string | undefined, issuer: string): boolean {
  const [own, asked, loop] = [new URL(issuer), URL.parse(`http://${host ?? ''}`), ['localhost', '127.0.0.1', '[::1]']];
  if (asked === null || asked.pathname !== '/' || asked.username !== '' || asked.host === own.host) return asked?.host === own.host;
  return loop.includes(own.hostname) && loop.includes(asked.hostname) && asked.port === own.port;
}

/** The access log line; paths come from the client: no control characters, and nothing shaped like a token, reach the log. */
function logLine(method: string, path: string, status: number, seen: LogFields): string {
  const line = `${method} ${path} ${status} user=${seen.user ?? '-'} token=${seen.token ?? '-'} reason=${seen.reason ?? '-'}`;
  return redactTokens(line)
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
    .slice(0, 2048);
}
