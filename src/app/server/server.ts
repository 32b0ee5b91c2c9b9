/**
 * The reference dev server (`svc serve`): node:http and the library's own
 * helpers, on the same `SVC_HOME` as the CLI. Every request is authenticated
 * afresh (records are re-read from the store), so a token revoked by another
 * `svc` process is refused on its next request.
 *
 * Routes (docs/cli.md, the reference server):
 * - `GET  /api/whoami`                                  -> `{kind, user, token}`
 * - `GET  /api/repos/<org>/<repo>/head`                 -> `{org, repo, head}` (repo:read)
 * - `GET  /api/repos/<org>/<repo>/things/<Type>/<name>` -> `{name, content, commit}` (repo:read on the thing)
 * - `PUT  /api/repos/<org>/<repo>/things/<Type>/<name>` with `{content, committer?}` -> `{commit, committer}` (repo:write on the thing)
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthenticationError, NotFoundError, SvcAuthError, UnavailableError, ValidationError, type IssueInput } from '../../errors';
import { sendError, sendJson, finish, makeGate, makeRoute, principalOf, nodeGuard } from '../../http';
import type { GateObserver, NodeMiddleware } from '../../http';
import { redactTokens } from '../../tokens';
import { openInstance, type CliEnv, type DevInstance, ThingStore } from '../dev';
import { mountMcp } from './mcp';
import { readJson, segments, writeInput } from './input';

/**
 * Options of {@link createDevServer}.
 *
 * @example
 * ```ts
 * const options: DevServerOptions = { env: { SVC_HOME: '/tmp/svc' }, log: (line) => console.error(line) };
 * ```
 */
export interface DevServerOptions {
  /** An opened instance to serve; it stays open on `close()`. Default: open one from `env`. */
  instance?: DevInstance;
  /** Environment for opening the instance (`SVC_HOME`, ...). Default `{}` (so `~/.svc`). */
  env?: CliEnv;
  /** Receives one line per request (method, path, status, user, token name, decision). Default: none. */
  log?: (line: string) => void;
  /**
   * Extra routes by exact path (for example `/mcp`), tried before the built-in
   * ones. Each handler answers its request itself; an error it throws is
   * answered per H2.
   */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>>;
  /** Browser origins that may call `/mcp` besides the server's own; any other `Origin` gets 403. Default none. */
  allowedOrigins?: readonly string[];
}

/**
 * A dev server, built but not yet listening.
 *
 * @example
 * ```ts
 * const dev = await createDevServer({ env: { SVC_HOME: '/tmp/svc' } });
 * const url = await dev.listen({ port: 0 }); // 'http://127.0.0.1:53124'
 * await dev.close();
 * ```
 */
export interface DevServer {
  readonly server: Server;
  /** Start listening (default host `127.0.0.1`, port 8080; port 0 picks a free one); resolves to the base URL. */
  listen(options?: { host?: string; port?: number }): Promise<string>;
  /** Stop accepting, drop open connections, release the instance if this server opened it. */
  close(): Promise<void>;
}

/** What one request did, for its log line. */
interface Trace {
  user?: string;
  token?: string;
  reason?: string;
}

/** A request after routing: the route's own parameters, never re-read from the URL. */
type Routed = IncomingMessage & { params: { org: string; repo: string; name: string } };
type Handler = (req: Routed, res: ServerResponse) => Promise<void>;
interface Route {
  params: Routed['params'];
  methods: Record<string, Handler>;
}

/**
 * Build the reference dev server over the dev instance.
 *
 * @throws UnavailableError when the instance cannot be opened.
 * @example
 * ```ts
 * import { createDevServer } from './src/app/server'; // not a public export: the reference server of `svc serve`
 * const dev = await createDevServer({ env: process.env, log: (l) => process.stderr.write(`${l}\n`) });
 * console.log(`listening on ${await dev.listen({ port: 0 })}`);
 * ```
 */
export async function createDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const owned = options.instance === undefined;
  const log = options.log;
  // A home tightened on start is said in the log, as the other commands say it on stderr.
  const dev = options.instance ?? (await openInstance(options.env ?? {}, { notice: (text) => log?.(`svc: ${text}`) }));
  const things = new ThingStore(dev.home);

  // Every route goes through the library's own guard (requireAuth's machinery):
  // authenticate -> authorize on the route's parameters -> H2 answers. The
  // observer only feeds the log line; it decides nothing.
  const traces = new WeakMap<object, Trace>();
  const observe: GateObserver = (req, event) => {
    const trace = typeof req === 'object' && req !== null ? traces.get(req) : undefined;
    if (trace === undefined) return;
    if (event.principal) {
      trace.user = event.principal.userId;
      trace.token = event.principal.tokenName ?? event.principal.kind;
    }
    trace.reason = event.reason;
    if (event.tokenId !== undefined) trace.token ??= `id:${event.tokenId}`;
  };
  const guard = (check?: { permission: 'repo:read' | 'repo:write'; thing?: true }): NodeMiddleware<Routed> => {
    const issues: IssueInput[] = [];
    const gate = makeGate(dev.auth, {}, issues, observe);
    const route =
      check === undefined
        ? undefined
        : makeRoute<Routed>(
            {
              permission: check.permission,
              resource: (req: Routed) => `${req.params.org}/${req.params.repo}`,
              ...(check.thing ? { thing: (req: Routed) => req.params.name } : {}),
            },
            issues,
            true,
          );
    finish(issues);
    return nodeGuard<Routed>({ gate, route });
  };
  const signedIn = guard();
  const readRepo = guard({ permission: 'repo:read' });
  const readThing = guard({ permission: 'repo:read', thing: true });
  const writeThing = guard({ permission: 'repo:write', thing: true });

  /** Runs `body` behind `g`; the log line learns who it was. */
  const behind =
    (g: NodeMiddleware<Routed>, body: (req: Routed, res: ServerResponse) => Promise<void>): Handler =>
    (req, res) =>
      g(req, res, async () => {
        const p = principalOf(req);
        const trace = traces.get(req);
        if (trace !== undefined) {
          trace.user = p.userId;
          trace.token = p.tokenName ?? p.kind;
          trace.reason ??= 'allow';
        }
        try {
          await body(req, res);
        } catch (err) {
          if (trace !== undefined) trace.reason = reasonOf(err);
          throw err;
        }
      });

  function route(path: string): Route | undefined {
    const segs = segments(path);
    if (segs === undefined || segs[0] !== 'api') return undefined;
    if (segs.length === 2 && segs[1] === 'whoami') {
      return {
        params: { org: '', repo: '', name: '' },
        methods: {
          GET: behind(signedIn, (req, res) => {
            const p = principalOf(req);
            sendJson(res, 200, { kind: p.kind, user: p.userId, token: p.tokenName ?? null });
            return Promise.resolve();
          }),
        },
      };
    }
    if (segs[1] !== 'repos' || segs.length < 5) return undefined;
    const [org, repo, what] = [segs[2] as string, segs[3] as string, segs[4] as string];
    const key = `${org}/${repo}`.toLowerCase();
    if (what === 'head' && segs.length === 5) {
      return {
        params: { org, repo, name: '' },
        methods: {
          GET: behind(readRepo, async (_req, res) => {
            sendJson(res, 200, { org: org.toLowerCase(), repo: repo.toLowerCase(), head: await things.head(key) });
          }),
        },
      };
    }
    if (what !== 'things' || segs.length < 7) return undefined;
    const name = segs.slice(5).join('/');
    return {
      params: { org, repo, name },
      methods: {
        GET: behind(readThing, async (_req, res) => {
          const thing = await things.get(key, name);
          if (thing === undefined) throw new NotFoundError(`no thing ${name} in ${key}`);
          sendJson(res, 200, { name: thing.name, content: thing.content, commit: thing.commit });
        }),
        PUT: behind(writeThing, async (req, res) => {
          const body = await readJson(req, res);
          if (body === undefined) return;
          const { content, committer: override } = writeInput(body);
          const committer = dev.auth.committer(principalOf(req), override);
          const thing = await things.put(key, name, content, committer);
          sendJson(res, 200, { commit: thing.commit, committer: thing.committer });
        }),
      },
    };
  }

  const extra = options.routes ?? {};

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const trace: Trace = {};
    traces.set(req, trace);
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    try {
      const own = Object.hasOwn(extra, path) ? extra[path] : undefined;
      if (own !== undefined) return await own(req, res);
      const r = route(path);
      if (r === undefined) throw new NotFoundError('no such endpoint');
      const handler = Object.hasOwn(r.methods, method) ? r.methods[method] : undefined;
      if (handler === undefined) {
        trace.reason = 'method';
        sendJson(
          res,
          405,
          { error: 'method_not_allowed', message: `use ${Object.keys(r.methods).join(' or ')}` },
          { allow: Object.keys(r.methods).join(', ') },
        );
        return;
      }
      const routed = req as Routed;
      routed.params = r.params;
      await handler(routed, res);
    } catch (err) {
      trace.reason ??= reasonOf(err);
      // A refused token whose signature verified is traced by its id (never its value).
      if (err instanceof AuthenticationError && err.tokenId !== undefined) trace.token ??= `id:${err.tokenId}`;
      sendError(res, err);
    } finally {
      if (log !== undefined) {
        const line = `${method} ${path} ${res.statusCode} user=${trace.user ?? '-'} token=${trace.token ?? '-'} reason=${trace.reason ?? '-'}`;
        // Paths come from the client: no control characters, and nothing shaped like a token, reach the log.
        log(
          redactTokens(line)
            .replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
            .slice(0, 2048),
        );
      }
    }
  }

  let mcp: ReturnType<typeof mountMcp>;
  try {
    mcp = mountMcp(dev, things, { log, allowedOrigins: options.allowedOrigins });
  } catch (err) {
    // A bad --allow-origin: refused before listening, without keeping the instance open.
    if (owned) await dev.close();
    throw err;
  }
  // Hostile clients: a slow client that never finishes its headers or body is cut off,
  // and headers beyond 16 KiB get 431, so one client cannot hold the server's memory.
  const server = createServer(
    { headersTimeout: 10_000, requestTimeout: 30_000, maxHeaderSize: 16 * 1024, connectionsCheckingInterval: 1_000 },
    (req, res) => {
      if (!mcp(req, res)) void handle(req, res);
    },
  );

  return {
    server,
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
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (owned) await dev.close();
    },
  };
}

function reasonOf(err: unknown): string {
  return err instanceof AuthenticationError ? err.reason : err instanceof SvcAuthError ? err.code : 'internal';
}
